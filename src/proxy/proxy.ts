// One named proxy: a listener on 127.0.0.1 (or a container bridge's gateway,
// for node→node links between containers) forwarding to an upstream, with
// toxics. Disabled = the listener is closed (new connects are refused) and
// every open connection is closed, as Toxiproxy does.
import net from 'node:net';
import os from 'node:os';
import { Connection } from './connection.ts';
import { monotonicMs } from '../monotonic.ts';
import type { ClientPoints } from './points.ts';
import { ApiError, parseToxic, toxicJson, updateToxic } from './toxics.ts';
import type { Stream, Toxic, ToxicJson } from './toxics.ts';

export interface ProxyJson { name: string; listen: string; upstream: string; enabled: boolean; toxics: ToxicJson[] }

export interface HostPort { host: string; port: number }

/**
 * One open connection as both servers see it: `client` is the peer that connected to the proxy,
 * `upstream` the proxy's own end of its connection to the server (the address and port the
 * server lists for that session: how session-kill finds a client's sessions with no tag).
 */
export interface ConnectionJson { client: string; upstream: string }

/**
 * The addresses a proxy may listen on: loopback, and this machine's own address on a
 * container bridge (Docker's br-* / docker0), which only this machine and its containers reach.
 */
function listenable(host: string): boolean {
  if (host === '127.0.0.1' || host === 'localhost') return true;
  return Object.entries(os.networkInterfaces()).some(([name, addrs]) => /^(br-|docker)/.test(name) && (addrs ?? []).some((a) => a.address === host));
}

/** Parses "host:port"; the proxy listens on loopback (or a container bridge's gateway) only. */
export function parseAddress(field: string, value: unknown, listen: boolean): HostPort {
  if (typeof value !== 'string') throw new ApiError(400, `proxy ${field} must be a "host:port" string, got ${JSON.stringify(value)}`);
  const i = value.lastIndexOf(':');
  const host = value.slice(0, i).replace(/^\[(.*)\]$/, '$1') || '127.0.0.1';
  const port = Number(value.slice(i + 1));
  if (i < 0 || !Number.isInteger(port) || port < 0 || port > 65535 || (!listen && port === 0)) {
    throw new ApiError(400, `proxy ${field} ${JSON.stringify(value)} is not "host:port" (e.g. "127.0.0.1:${listen ? '0' : '6379'}")`);
  }
  if (listen && !listenable(host)) {
    throw new ApiError(400, `proxy listen ${JSON.stringify(value)}: this proxy listens on loopback (or a container bridge's gateway address) only; use "127.0.0.1:PORT" (0 = any free port)`);
  }
  return { host: listen && host === 'localhost' ? '127.0.0.1' : host, port };
}

export class FaultProxy {
  private server: net.Server | null = null;
  private readonly conns = new Set<Connection>();
  /**
   * Connections accepted whose upstream is still connecting (not in conns yet), as the function
   * that drops them: a stop drops them too, else the server's close waited on them for as long as
   * their upstream took to connect or fail.
   */
  private readonly opening = new Set<() => void>();
  private readonly toxicList: Toxic[] = [];
  private listenAddr: HostPort;
  private upstreamAddr: HostPort;
  enabled = false;
  /** The client whose requests this link carries, when its I/O points are the proxy's (./points.ts): connections opened from now on are framed. */
  points: ClientPoints | undefined;
  /**
   * When the client's bytes last reached this link, on CLOCK_MONOTONIC (the clock every lockpick
   * process shares): the bound client's last send, for `sent_ms` (./points.ts). Taken as bytes
   * arrive, before any toxic delays them: no later than the client wrote them.
   */
  lastClientSendMs: number | undefined;

  clientSent(): void { this.lastClientSendMs = monotonicMs(); }

  constructor(readonly name: string, listen: unknown, upstream: unknown) {
    this.listenAddr = parseAddress('listen', listen, true);
    this.upstreamAddr = parseAddress('upstream', upstream, false);
  }

  get listen(): string { return `${this.listenAddr.host}:${this.listenAddr.port}`; }
  get upstream(): string { return `${this.upstreamAddr.host}:${this.upstreamAddr.port}`; }

  json(): ProxyJson {
    return { name: this.name, listen: this.listen, upstream: this.upstream, enabled: this.enabled, toxics: this.toxicList.map(toxicJson) };
  }

  /** Open connections (a lockpick extension: GET /proxies/{name}/connections; Toxiproxy has none). */
  connections(): ConnectionJson[] {
    const at = (a: string | undefined, p: number | undefined) => `${a?.replace(/^::ffff:/, '') ?? '?'}:${p ?? 0}`;
    return [...this.conns].filter((c) => !c.closed).map((c) => ({
      client: at(c.client.remoteAddress, c.client.remotePort),
      upstream: at(c.upstream.localAddress, c.upstream.localPort),
    }));
  }

  async start(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) =>
        reject(new ApiError(500, `proxy ${this.name}: cannot listen on ${this.listen}: ${e.code ?? e.message}`)));
      server.listen(this.listenAddr.port, this.listenAddr.host, () => resolve());
    });
    // Keep the port we were given so a re-enabled proxy comes back at the same address.
    this.listenAddr = { host: this.listenAddr.host, port: (server.address() as net.AddressInfo).port };
    this.server = server;
    this.enabled = true;
  }

  async stop(): Promise<void> {
    this.enabled = false;
    const server = this.server;
    this.server = null;
    for (const c of [...this.conns]) c.close();
    for (const drop of [...this.opening]) drop();
    // close() shuts the listener at once; its callback waits for every accepted socket, which
    // those closed above are. A socket still open is not ours to wait on: a stop answers in ≤1 s.
    if (server) {
      await new Promise<void>((r) => {
        const t = setTimeout(r, 1000);
        server.close(() => { clearTimeout(t); r(); });
      });
    }
  }

  /** Applies a POST /proxies/{name} body: enabled, listen, upstream (each optional). */
  async update(body: Record<string, unknown>): Promise<void> {
    const listen = body.listen !== undefined ? parseAddress('listen', body.listen, true) : this.listenAddr;
    const upstream = body.upstream !== undefined ? parseAddress('upstream', body.upstream, false) : this.upstreamAddr;
    if (body.enabled !== undefined && typeof body.enabled !== 'boolean') {
      throw new ApiError(400, `proxy enabled must be true or false, got ${JSON.stringify(body.enabled)}`);
    }
    const enabled = body.enabled ?? this.enabled;
    const moved = listen.port !== this.listenAddr.port || upstream.host !== this.upstreamAddr.host || upstream.port !== this.upstreamAddr.port;
    if (moved || !enabled) await this.stop();
    this.listenAddr = listen;
    this.upstreamAddr = upstream;
    if (enabled) await this.start();
  }

  toxics(stream?: Stream): Toxic[] {
    return stream ? this.toxicList.filter((t) => t.stream === stream) : [...this.toxicList];
  }

  toxic(name: string): Toxic {
    const t = this.toxicList.find((x) => x.name === name);
    if (!t) throw new ApiError(404, `toxic not found: '${name}' on proxy '${this.name}'`);
    return t;
  }

  addToxic(body: unknown): Toxic {
    const t = parseToxic(body);
    if (this.toxicList.some((x) => x.name === t.name)) throw new ApiError(409, `toxic already exists: '${t.name}' on proxy '${this.name}'`);
    this.toxicList.push(t);
    this.refresh();
    return t;
  }

  updateToxic(name: string, body: unknown): Toxic {
    const i = this.toxicList.indexOf(this.toxic(name));
    const t = updateToxic(this.toxicList[i]!, body);
    this.toxicList[i] = t;
    this.refresh();
    return t;
  }

  removeToxic(name: string): void {
    this.toxicList.splice(this.toxicList.indexOf(this.toxic(name)), 1);
    this.refresh();
  }

  removeAllToxics(): void {
    this.toxicList.length = 0;
    this.refresh();
  }

  private refresh(): void { for (const c of this.conns) c.refresh(); }

  private accept(client: net.Socket): void {
    client.pause(); // hold the client's bytes until the upstream is connected
    const upstream = net.connect({ host: this.upstreamAddr.host, port: this.upstreamAddr.port });
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const refuse = () => { this.opening.delete(refuse); client.destroy(); upstream.destroy(); };
    this.opening.add(refuse);
    client.once('error', refuse);
    upstream.once('error', refuse);
    upstream.once('connect', () => {
      this.opening.delete(refuse);
      client.off('error', refuse);
      upstream.off('error', refuse);
      if (!this.enabled || client.destroyed) return refuse();
      const tap = this.points ? { framer: this.points.framing.create(), points: this.points } : undefined;
      const conn = new Connection(this, client, upstream, (c) => this.conns.delete(c), tap);
      this.conns.add(conn);
      client.resume();
    });
  }
}
