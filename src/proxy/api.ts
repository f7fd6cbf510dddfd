// The subset of Toxiproxy's HTTP API that toxiproxy-node-client uses, with the
// same paths, status codes and JSON shapes (errors: {"error", "status"}).
import http from 'node:http';
import type net from 'node:net';
import { FaultProxy } from './proxy.ts';
import { ApiError, toxicJson } from './toxics.ts';
import { ClientPoints, framing, POINT_OPS, type PointOp } from './points.ts';
import { FRAMINGS } from './framing/index.ts';

export const PROXY_VERSION = '2.9.0-lockpick';

type Reply = { status: number; body?: unknown };

/** A request unanswered this long is reported (on stderr, which lockpick passes on): what it waits for, so a hang names its cause. */
const SLOW_MS = 5_000;

export class ProxyApi {
  private readonly proxies = new Map<string, FaultProxy>();
  /** Clients whose I/O points the proxy makes, by client id (lockpick's extension: /points/{client}, ./points.ts). */
  private readonly clients = new Map<string, ClientPoints>();
  private server: http.Server | null = null;
  private queue: Promise<unknown> = Promise.resolve(); // requests apply one at a time, in arrival order
  /** The request the queue is applying now ("POST /proxies/x"), for the slow-request report. */
  private applying: string | undefined;

  private readonly warn: (line: string) => void;
  private readonly slowMs: number;

  constructor(opts: { warn?: (line: string) => void; slowMs?: number } = {}) {
    this.warn = opts.warn ?? ((l) => process.stderr.write(l + '\n'));
    this.slowMs = opts.slowMs ?? SLOW_MS;
  }

  /** Listens on 127.0.0.1:port (0 = a free port) and returns the base URL. */
  async listen(port: number): Promise<string> {
    const server = http.createServer((req, res) => { void this.handle(req, res); });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const c of this.clients.values()) c.releaseAll();
    this.clients.clear();
    for (const p of this.proxies.values()) await p.stop();
    this.proxies.clear();
    const server = this.server;
    this.server = null;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const what = `${req.method ?? 'GET'} ${req.url ?? '/'}`;
    const t0 = performance.now();
    let stage = 'reading its body';
    const slow = setTimeout(() => this.warn(`lockpick fault proxy: ${what} unanswered after ${this.slowMs / 1000} s, ${stage}`
      + (stage === 'queued' ? ` behind ${this.applying ?? '(nothing: the queue is stuck)'}` : '')), this.slowMs);
    let reply: Reply;
    try {
      const body = await readJson(req);
      const url = new URL(req.url ?? '/', 'http://x');
      // The long poll for a held request waits outside the queue: other requests go on meanwhile.
      const held = /^\/points\/([^/]+)\/held$/.exec(url.pathname);
      if (held && req.method === 'GET') {
        clearTimeout(slow);
        const wait = Math.min(30_000, Math.max(0, Number(url.searchParams.get('wait_ms') ?? 0) || 0));
        const h = await this.client(decodeURIComponent(held[1]!)).next(wait);
        reply = h ? { status: 200, body: h } : { status: 204 };
        return void send(res, reply);
      }
      stage = 'queued';
      const run = this.queue.then(() => {
        stage = 'being applied';
        this.applying = what;
        return this.route(req.method ?? 'GET', url.pathname, body);
      }).finally(() => { this.applying = undefined; });
      this.queue = run.catch(() => undefined);
      reply = await run;
    } catch (e) {
      const status = e instanceof ApiError ? e.status : 500;
      reply = { status, body: { error: e instanceof Error ? e.message : String(e), status } };
    }
    clearTimeout(slow);
    const ms = performance.now() - t0;
    if (ms >= this.slowMs) this.warn(`lockpick fault proxy: ${what} answered ${reply.status} after ${(ms / 1000).toFixed(1)} s`);
    send(res, reply);
  }

  private client(id: string): ClientPoints {
    const c = this.clients.get(id);
    if (!c) throw new ApiError(404, `no client '${id}' is bound to proxy points (PUT /points/${id} first)`);
    return c;
  }

  /**
   * lockpick's I/O points in the proxy (./points.ts): PUT binds a client's links
   * ({"proxies": [...], "framing": "resp", "hold": ["send:release:2"]}), POST .../operation says
   * which operation it is in ({"op": "release"} or null; "granted": the acquire ending got the
   * lock), GET .../held?wait_ms=N waits for a held request ({"id", "point", "command"}; 204: none),
   * POST .../go ({"id"}) lets it go on, GET the counts and `last_send_ms` (when the client's bytes
   * last reached one of its links, CLOCK_MONOTONIC ms), DELETE unbinds (all held requests go on).
   */
  private points(method: string, id: string, sub: string | undefined, body: unknown): Reply {
    if (sub === undefined && method === 'PUT') {
      const f = isRecord(body) ? framing(body.framing) : undefined;
      const proxies = isRecord(body) && Array.isArray(body.proxies) && body.proxies.every((p) => typeof p === 'string') ? body.proxies as string[] : undefined;
      const hold = isRecord(body) && body.hold !== undefined ? body.hold : [];
      if (!f || !proxies || !Array.isArray(hold) || !hold.every((h) => typeof h === 'string')) {
        throw new ApiError(400, `points body must be {"proxies": ["name", ...], "framing": ${[...FRAMINGS.keys()].map((k) => `"${k}"`).join(' | ')}, "hold": ["send:<op>:N", ...]}`);
      }
      const links = proxies.map((n) => this.proxy(n));
      this.unbind(id);
      const c = new ClientPoints(f);
      c.arm(hold as string[]);
      for (const p of links) { p.points = c; p.lastClientSendMs = undefined; }
      this.clients.set(id, c);
      return { status: 200, body: c.json() };
    }
    if (sub === undefined && method === 'GET') {
      const c = this.client(id);
      return { status: 200, body: { ...c.json(), last_send_ms: this.lastSend(c) } };
    }
    if (sub === undefined && method === 'DELETE') { this.unbind(id); return { status: 204 }; }
    if (sub === 'operation' && method === 'POST') {
      const op = isRecord(body) ? body.op : undefined;
      if (!isRecord(body) || !(op === null || (POINT_OPS as readonly unknown[]).includes(op))) {
        throw new ApiError(400, `operation body must be {"op": ${POINT_OPS.map((o) => `"${o}"`).join(' | ')} | null, "granted"?: true}`);
      }
      this.client(id).operation((op ?? undefined) as PointOp | undefined, body.granted === true);
      return { status: 204 };
    }
    if (sub === 'go' && method === 'POST') {
      if (!isRecord(body) || !Number.isInteger(body.id)) throw new ApiError(400, 'go body must be {"id": N} (the id GET .../held gave)');
      this.client(id).go(body.id as number);
      return { status: 204 };
    }
    throw new ApiError(405, `method not allowed: ${method} /points/${id}${sub ? `/${sub}` : ''}`);
  }

  /** When the client's bytes last reached any of its links (CLOCK_MONOTONIC ms), or null: none since they were bound. */
  private lastSend(c: ClientPoints): number | null {
    let last: number | null = null;
    for (const p of this.proxies.values()) {
      if (p.points === c && p.lastClientSendMs !== undefined && (last === null || p.lastClientSendMs > last)) last = p.lastClientSendMs;
    }
    return last;
  }

  private unbind(id: string): void {
    const c = this.clients.get(id);
    if (!c) return;
    c.releaseAll();
    for (const p of this.proxies.values()) if (p.points === c) p.points = undefined;
    this.clients.delete(id);
  }

  private proxy(name: string): FaultProxy {
    const p = this.proxies.get(name);
    if (!p) throw new ApiError(404, `proxy not found: '${name}'`);
    return p;
  }

  private async create(body: unknown): Promise<FaultProxy> {
    if (!isRecord(body) || typeof body.name !== 'string' || body.name === '') {
      throw new ApiError(400, 'proxy body must be {"name": "...", "listen": "127.0.0.1:PORT", "upstream": "host:port", "enabled": true}');
    }
    if (this.proxies.has(body.name)) throw new ApiError(409, `proxy already exists: '${body.name}'`);
    if (body.enabled !== undefined && typeof body.enabled !== 'boolean') {
      throw new ApiError(400, `proxy enabled must be true or false, got ${JSON.stringify(body.enabled)}`);
    }
    const p = new FaultProxy(body.name, body.listen ?? '127.0.0.1:0', body.upstream);
    // Always bind once, so the reported listen address has the real port.
    await p.start();
    if (body.enabled === false) await p.stop();
    this.proxies.set(p.name, p);
    return p;
  }

  private async populate(body: unknown): Promise<FaultProxy[]> {
    if (!Array.isArray(body)) throw new ApiError(400, 'populate body must be a JSON array of proxies');
    const out: FaultProxy[] = [];
    for (const item of body) {
      const old = isRecord(item) && typeof item.name === 'string' ? this.proxies.get(item.name) : undefined;
      if (old && isRecord(item) && (item.listen === undefined || item.listen === old.listen) && item.upstream === old.upstream) {
        await old.update({ enabled: item.enabled ?? true });
        out.push(old);
        continue;
      }
      if (old) { await old.stop(); this.proxies.delete(old.name); }
      out.push(await this.create(item));
    }
    return out;
  }

  private async route(method: string, path: string, body: unknown): Promise<Reply> {
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    const [root, name, sub, toxic] = parts;
    if (root === 'version' && parts.length === 1 && method === 'GET') return { status: 200, body: PROXY_VERSION };
    if (root === 'reset' && parts.length === 1 && method === 'POST') {
      for (const p of this.proxies.values()) { p.removeAllToxics(); await p.start(); }
      return { status: 204 };
    }
    if (root === 'populate' && parts.length === 1 && method === 'POST') {
      return { status: 201, body: { proxies: (await this.populate(body)).map((p) => p.json()) } };
    }
    if (root === 'points' && name !== undefined && parts.length <= 3) return this.points(method, name, sub, body);
    if (root !== 'proxies') throw new ApiError(404, `no such endpoint: ${method} ${path}`);
    if (name === undefined) {
      if (method === 'GET') return { status: 200, body: Object.fromEntries([...this.proxies].map(([n, p]) => [n, p.json()])) };
      if (method === 'POST') return { status: 201, body: (await this.create(body)).json() };
    } else if (sub === undefined) {
      const p = this.proxy(name);
      if (method === 'GET') return { status: 200, body: p.json() };
      if (method === 'POST' || method === 'PATCH') {
        if (!isRecord(body)) throw new ApiError(400, 'proxy update body must be a JSON object, e.g. {"enabled": false}');
        await p.update(body);
        return { status: 200, body: p.json() };
      }
      if (method === 'DELETE') { await p.stop(); this.proxies.delete(name); return { status: 204 }; }
    } else if (sub === 'connections' && parts.length === 3 && method === 'GET') {
      return { status: 200, body: this.proxy(name).connections() };
    } else if (sub === 'toxics' && parts.length <= 4) {
      const p = this.proxy(name);
      if (toxic === undefined) {
        if (method === 'GET') return { status: 200, body: p.toxics().map(toxicJson) };
        if (method === 'POST') return { status: 200, body: toxicJson(p.addToxic(body)) };
      } else {
        if (method === 'GET') return { status: 200, body: toxicJson(p.toxic(toxic)) };
        if (method === 'POST' || method === 'PATCH') return { status: 200, body: toxicJson(p.updateToxic(toxic, body)) };
        if (method === 'DELETE') { p.removeToxic(toxic); return { status: 204 }; }
      }
    }
    throw new ApiError(405, `method not allowed: ${method} ${path}`);
  }
}

/**
 * Every answer closes its connection: a client keeps no idle socket to reuse. With keep-alive, a
 * fetch (undici) now and then reused a socket as it was being closed and waited 300 s for an
 * answer the proxy had never been asked for (seen in CI and reproduced under load: the proxy
 * idle, the client with no socket to it).
 */
function send(res: http.ServerResponse, reply: Reply): void {
  res.setHeader('Connection', 'close');
  if (reply.body === undefined) {
    res.writeHead(reply.status).end();
  } else if (typeof reply.body === 'string') {
    res.writeHead(reply.status, { 'Content-Type': 'text/plain' }).end(reply.body);
  } else {
    res.writeHead(reply.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(reply.body));
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, `request body is not valid JSON: ${text.slice(0, 80)}`);
  }
}
