// A small memcached client over node:net, the text protocol: add, gets, cas, delete, touch.
// Every command ends in one of three outcomes (as outcome.ts says for Redis):
//   a reply            → its value (STORED / NOT_STORED, EXISTS, NOT_FOUND, ...)
//   certainly not done → DefiniteFailure: never written (no connection), or the server refused
//                        it (ERROR, CLIENT_ERROR, SERVER_ERROR: memcached executes nothing then)
//   unknown            → a plain Error: written, and no reply before the deadline or the close
// After an unknown outcome the connection is dropped (a late reply would answer the next
// command), and the next command connects afresh.
import { Socket } from 'node:net';
import { DefiniteFailure } from './lock.ts';

export interface McEndpoint { host: string; port: number }

/** One item `gets` found: its value and cas unique. */
export interface McItem { value: string; cas: string }

type Expect = 'line' | 'gets';
interface Pending { expect: Expect; what: string; resolve(v: string | McItem | undefined): void; reject(e: Error): void; timer: NodeJS.Timeout }

/** Server words that mean the command was refused, not executed. */
const REFUSED = /^(ERROR|CLIENT_ERROR|SERVER_ERROR)\b/;

/**
 * memcached counts expiry in whole seconds on a clock that ticks once a second, so an item
 * set with exptime N lives between N − 1 and N seconds: a lease of ttlMs asks for one second
 * more than it needs, and never ends early (the topology declares the lag as its leaseLagMs).
 */
export function exptimeFor(ttlMs: number): number {
  return Math.ceil(ttlMs / 1000) + 1;
}

/** A key memcached takes: 1 to 250 bytes, no spaces or control characters. */
function checkKey(key: string): string {
  if (!/^[\x21-\x7e]{1,250}$/.test(key)) throw new DefiniteFailure(`memcached: key '${key}' is not 1 to 250 printable bytes without spaces`);
  return key;
}

export class MemcachedClient {
  private socket: Socket | undefined;
  private connecting: Promise<Socket> | undefined;
  private buf = Buffer.alloc(0);
  private readonly queue: Pending[] = [];

  constructor(private readonly ep: McEndpoint, private readonly timeoutMs: number) {}

  /** Connects now (a lock's create): a failure here is the caller's to report. */
  async connect(): Promise<void> {
    await this.open();
  }

  /** `add key 0 exptime` value: true when stored (the key was absent), false when NOT_STORED. */
  async add(key: string, value: string, exptimeS: number): Promise<boolean> {
    return (await this.storage('add', key, value, exptimeS)) === 'STORED';
  }

  /** `gets key`: the item with its cas unique, or undefined when absent. */
  async gets(key: string): Promise<McItem | undefined> {
    const r = await this.send(`gets ${checkKey(key)}\r\n`, 'gets', `gets ${key}`);
    if (r === undefined || typeof r === 'object') return r;
    this.expect(r, [], `gets ${key}`);   // throws: out of step
    return undefined;
  }

  /** `cas key 0 exptime bytes unique`: 'STORED', or 'EXISTS' (changed since the gets), 'NOT_FOUND' (gone). A negative exptime stores it already expired: an owner-checked delete. */
  async cas(key: string, value: string, exptimeS: number, unique: string): Promise<'STORED' | 'EXISTS' | 'NOT_FOUND'> {
    return (await this.storage('cas', key, value, exptimeS, unique)) as 'STORED' | 'EXISTS' | 'NOT_FOUND';
  }

  /** `delete key`: true when it deleted, false when NOT_FOUND. */
  async delete(key: string): Promise<boolean> {
    return this.expect(await this.send(`delete ${checkKey(key)}\r\n`, 'line', `delete ${key}`), ['DELETED', 'NOT_FOUND'], `delete ${key}`) === 'DELETED';
  }

  /** `touch key exptime`: true when TOUCHED, false when NOT_FOUND. */
  async touch(key: string, exptimeS: number): Promise<boolean> {
    return this.expect(await this.send(`touch ${checkKey(key)} ${exptimeS}\r\n`, 'line', `touch ${key}`), ['TOUCHED', 'NOT_FOUND'], `touch ${key}`) === 'TOUCHED';
  }

  close(): void {
    this.drop(new Error('memcached: connection closed by the client'));
  }

  private async storage(cmd: 'add' | 'cas', key: string, value: string, exptimeS: number, unique?: string): Promise<string> {
    const data = Buffer.from(value);
    const line = `${cmd} ${checkKey(key)} 0 ${exptimeS} ${data.length}${unique !== undefined ? ` ${unique}` : ''}\r\n${value}\r\n`;
    const words = cmd === 'add' ? ['STORED', 'NOT_STORED'] : ['STORED', 'EXISTS', 'NOT_FOUND'];
    return this.expect(await this.send(line, 'line', `${cmd} ${key}`), words, `${cmd} ${key}`);
  }

  /** A reply outside the command's words: the protocol is out of step, so the outcome is unknown. */
  private expect(reply: string | McItem | undefined, words: string[], what: string): string {
    if (typeof reply === 'string' && words.includes(reply)) return reply;
    this.drop(new Error(`memcached: ${what}: unexpected reply ${JSON.stringify(reply)}`));
    throw new Error(`memcached: ${what}: unexpected reply ${JSON.stringify(reply)}`);
  }

  private open(): Promise<Socket> {
    if (this.socket && !this.socket.destroyed) return Promise.resolve(this.socket);
    this.connecting ??= new Promise<Socket>((resolve, reject) => {
      const s = new Socket();
      s.setNoDelay(true);
      const fail = (e: Error) => { clearTimeout(t); s.destroy(); this.connecting = undefined; reject(new DefiniteFailure(`memcached: cannot connect to ${this.ep.host}:${this.ep.port}: ${e.message}`)); };
      const t = setTimeout(() => fail(new Error(`no connection within ${this.timeoutMs} ms`)), this.timeoutMs);
      s.once('error', fail);
      s.connect(this.ep.port, this.ep.host, () => {
        clearTimeout(t);
        s.off('error', fail);
        s.on('error', (e) => this.drop(e, s));
        s.on('close', () => this.drop(new Error('memcached: the connection closed'), s));
        s.on('data', (d: Buffer) => this.read(d));
        this.socket = s;
        this.buf = Buffer.alloc(0);
        this.connecting = undefined;
        resolve(s);
      });
    });
    return this.connecting;
  }

  private async send(text: string, expect: Expect, what: string): Promise<string | McItem | undefined> {
    const s = await this.open();   // throws DefiniteFailure: nothing was written
    if (!s.writable) throw new DefiniteFailure(`memcached: ${what}: the connection is not writable (not sent)`);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // Written and unanswered: it may or may not have happened.
        this.drop(new Error(`memcached: ${what}: no reply within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.queue.push({ expect, what, resolve, reject, timer });
      s.write(text);
    });
  }

  /** Ends the connection; every command in flight has an unknown outcome. */
  private drop(e: Error, which?: Socket): void {
    if (which && which !== this.socket) return;
    const s = this.socket;
    this.socket = undefined;
    s?.destroy();
    for (const p of this.queue.splice(0)) { clearTimeout(p.timer); p.reject(new Error(`memcached: ${p.what}: ${e.message} (outcome unknown)`)); }
  }

  private read(d: Buffer): void {
    this.buf = Buffer.concat([this.buf, d]);
    for (;;) {
      const p = this.queue[0];
      if (!p) { this.buf = Buffer.alloc(0); return; }
      const parsed = p.expect === 'gets' ? this.parseGets() : this.parseLine();
      if (parsed === undefined) return;                     // more bytes needed
      this.queue.shift();
      clearTimeout(p.timer);
      const v = parsed.v;
      if (typeof v === 'string' && REFUSED.test(v)) p.reject(new DefiniteFailure(`memcached: ${p.what}: ${v}`));
      else p.resolve(v);
    }
  }

  private parseLine(): { v: string } | undefined {
    const i = this.buf.indexOf('\r\n');
    if (i < 0) return undefined;
    const v = this.buf.toString('utf8', 0, i);
    this.buf = this.buf.subarray(i + 2);
    return { v };
  }

  /** `VALUE key flags bytes cas` + data + `END`, or `END`, or a refusal line. */
  private parseGets(): { v: string | McItem | undefined } | undefined {
    const i = this.buf.indexOf('\r\n');
    if (i < 0) return undefined;
    const head = this.buf.toString('utf8', 0, i);
    if (head === 'END') { this.buf = this.buf.subarray(i + 2); return { v: undefined }; }
    const m = /^VALUE \S+ \d+ (\d+) (\d+)$/.exec(head);
    if (!m) { this.buf = this.buf.subarray(i + 2); return { v: head }; }
    const bytes = Number(m[1]);
    const end = i + 2 + bytes + 2 + 5;                      // data \r\n END\r\n
    if (this.buf.length < end) return undefined;
    const value = this.buf.toString('utf8', i + 2, i + 2 + bytes);
    this.buf = this.buf.subarray(end);
    return { v: { value, cas: m[2]! } };
  }
}
