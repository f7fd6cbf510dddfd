// The servers of an external environment, as the user names them:
//   --endpoints redis=127.0.0.1:6379,redis=10.0.0.2:6379,zookeeper=zk1:2181,
//               mysql=user:pass@db:3306/locks,sentinel=10.0.0.5:26379,master=mymaster,
//               resource=127.0.0.1:6380
// or --endpoints FILE.json holding the same as an array: ["redis=127.0.0.1:6379", ...]
// or objects [{"role": "redis", "host": "127.0.0.1", "port": 6379}, ...].
// The role words are the registered topologies' (TopologyDef.endpointRoles) plus
// `resource`; a role with a login takes USER:PASSWORD@HOST:PORT/DATABASE.
import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.ts';
import { requireRegularFile } from '../regular-file.ts';
import { topologyEndpointRoles } from './topologies.ts';
import type { EndpointRoleDef } from './topology.ts';
import type { ExternalEndpoint, ExternalServers } from './types.ts';

/** The environment's own role, whatever the topology: a Redis for the protected resource. */
const RESOURCE: EndpointRoleDef = { role: 'resource' };

/** Every role --endpoints takes: the registered topologies' and `resource`. */
export function endpointRoles(): EndpointRoleDef[] {
  return [...topologyEndpointRoles(), RESOURCE];
}

function roleDef(role: unknown): EndpointRoleDef | undefined {
  return endpointRoles().find((r) => r.role === role);
}

export type { ExternalEndpoint, ExternalServers };

/** How to write --endpoints, with the roles the registry has. */
function format(): string {
  const roles = endpointRoles();
  const plain = roles.filter((r) => !r.login).map((r) => r.role);
  const logins = roles.filter((r) => r.login).map((r) => `${r.role}=USER:PASSWORD@HOST:PORT/DATABASE, `);
  return `write it as ROLE=HOST:PORT (roles: ${plain.join(', ')}), ${logins.join('')}master=NAME (the Sentinel master), comma-separated, or give a .json file`;
}

function bad(where: string, what: string): never {
  throw new UsageError(`--endpoints ${where}: ${what}; ${format()}`);
}

function hostPort(s: string, where: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:@/]+):(\d+)$/.exec(s);
  if (!m) bad(where, `'${s}' is not HOST:PORT`);
  const port = Number(m[2]);
  if (port < 1 || port > 65535) bad(where, `port ${m[2]} is out of range`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

/** One `ROLE=ADDRESS` entry; `master=NAME` comes back as the master name. */
function parseEntry(entry: string, where: string): ExternalEndpoint | { master: string } {
  const i = entry.indexOf('=');
  if (i <= 0) bad(where, `'${entry}' has no ROLE=`);
  const role = entry.slice(0, i).trim();
  const addr = entry.slice(i + 1).trim();
  if (role === 'master') {
    if (!/^[A-Za-z0-9_.-]+$/.test(addr)) bad(where, `master name '${addr}' must be letters, digits, '_', '.', '-'`);
    return { master: addr };
  }
  if (!roleDef(role)) bad(where, `unknown role '${role}'`);
  if (!roleDef(role)!.login) return { role, ...hostPort(addr, where) };
  // The last '@' ends the password (a password may hold '@' and ':'; a host cannot).
  const m = /^([^:@]+):(.*)@([^@/]+)\/([A-Za-z0-9_$]+)$/.exec(addr);
  if (!m) bad(where, `'${addr}' is not USER:PASSWORD@HOST:PORT/DATABASE`);
  return { role, user: m[1]!, password: m[2]!, ...hostPort(m[3]!, where), database: m[4]! };
}

function fromObject(o: unknown, where: string): ExternalEndpoint {
  if (typeof o === 'string') {
    const e = parseEntry(o, where);
    if ('master' in e) bad(where, 'master= belongs in {"master": NAME} at the top of the file');
    return e;
  }
  if (!o || typeof o !== 'object') bad(where, 'each entry must be "ROLE=ADDRESS" or {"role", "host", "port"}');
  const r = o as Record<string, unknown>;
  const def = roleDef(r.role);
  if (!def) bad(where, `unknown role ${JSON.stringify(r.role)}`);
  if (typeof r.host !== 'string' || !Number.isInteger(r.port)) bad(where, 'needs "host" (a string) and "port" (a whole number)');
  const out: ExternalEndpoint = { role: def.role, ...hostPort(`${r.host}:${String(r.port)}`, where) };
  for (const k of ['user', 'password', 'database'] as const) if (typeof r[k] === 'string') out[k] = r[k] as string;
  if (def.login && (!out.user || out.password === undefined || !out.database)) bad(where, `a ${def.role} endpoint needs "user", "password" and "database"`);
  return out;
}

/** `--endpoints` as given: a comma-separated list, or a path to a .json file. Throws UsageError naming the entry. */
export function parseEndpoints(arg: string): ExternalServers {
  const out: ExternalServers = { endpoints: [] };
  if (/\.json$/i.test(arg.trim())) {
    let raw: unknown;
    requireRegularFile(arg.trim(), '--endpoints', format());
    try {
      raw = JSON.parse(readFileSync(arg.trim(), 'utf8'));
    } catch (e) {
      throw new UsageError(`--endpoints ${arg}: cannot read it as JSON (${(e as Error).message}); ${format()}`);
    }
    const doc = Array.isArray(raw) ? { endpoints: raw } : (raw as Record<string, unknown>);
    if (!doc || !Array.isArray(doc.endpoints)) bad(arg, 'the file must hold an array of endpoints, or {"endpoints": [...], "master": NAME}');
    doc.endpoints.forEach((e, i) => out.endpoints.push(fromObject(e, `${arg} [${i}]`)));
    if (doc.master !== undefined) out.master = String(doc.master);
  } else {
    for (const entry of arg.split(',').map((s) => s.trim()).filter(Boolean)) {
      const e = parseEntry(entry, `'${entry}'`);
      if ('master' in e) out.master = e.master;
      else out.endpoints.push(e);
    }
  }
  if (out.endpoints.length === 0) bad(`'${arg}'`, 'names no server');
  return out;
}

/** For test.json: a password is never stored (a replay of such a run needs --endpoints again). */
export function redactEndpoints(s: ExternalServers): ExternalServers {
  return { ...s, endpoints: s.endpoints.map(({ password: _, ...e }) => e) };
}

/** Endpoints read back from test.json, checked like the command line's (a MySQL login without its password cannot be used). */
export function storedEndpoints(raw: unknown, where: string): ExternalServers {
  const doc = raw as { endpoints?: unknown; master?: unknown } | undefined;
  if (!doc || !Array.isArray(doc.endpoints)) throw new UsageError(`${where}: "env.endpoints" is missing; give --endpoints again`);
  const endpoints = doc.endpoints.map((e, i) => {
    const r = e as Record<string, unknown>;
    const def = roleDef(r?.role);
    if (def?.login && r.password === undefined) {
      throw new UsageError(`${where}: the ${def.what ?? def.role} password is not stored; give --endpoints ${def.role}=USER:PASSWORD@HOST:PORT/DATABASE again with --replay`);
    }
    return fromObject(e, `${where} env.endpoints[${i}]`);
  });
  return { endpoints, ...(typeof doc.master === 'string' ? { master: doc.master } : {}) };
}

/** HOST:PORT in words (with the user of a login role such as MySQL; never the password). */
export function endpointText(e: ExternalEndpoint): string {
  return `${e.role}=${e.user ? `${e.user}@` : ''}${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}${e.database ? `/${e.database}` : ''}`;
}
