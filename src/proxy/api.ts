// The subset of Toxiproxy's HTTP API that toxiproxy-node-client uses, with the
// same paths, status codes and JSON shapes (errors: {"error", "status"}).
import http from 'node:http';
import type net from 'node:net';
import { FaultProxy } from './proxy.ts';
import { ApiError, toxicJson } from './toxics.ts';

export const PROXY_VERSION = '2.9.0-lockpick';

type Reply = { status: number; body?: unknown };

export class ProxyApi {
  private readonly proxies = new Map<string, FaultProxy>();
  private server: http.Server | null = null;
  private queue: Promise<unknown> = Promise.resolve(); // requests apply one at a time, in arrival order

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
    let reply: Reply;
    try {
      const body = await readJson(req);
      const run = this.queue.then(() => this.route(req.method ?? 'GET', new URL(req.url ?? '/', 'http://x').pathname, body));
      this.queue = run.catch(() => undefined);
      reply = await run;
    } catch (e) {
      const status = e instanceof ApiError ? e.status : 500;
      reply = { status, body: { error: e instanceof Error ? e.message : String(e), status } };
    }
    if (reply.body === undefined) {
      res.writeHead(reply.status).end();
    } else if (typeof reply.body === 'string') {
      res.writeHead(reply.status, { 'Content-Type': 'text/plain' }).end(reply.body);
    } else {
      res.writeHead(reply.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(reply.body));
    }
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
