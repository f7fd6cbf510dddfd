// What `lockpick serve` pushes to its pages (server-sent events): the store's rows whenever
// they change (a run started, a progress line appended by a running search, a verdict
// written), and the course's state. The store is watched with fs.watch where the platform
// gives recursive watching, and polled besides (a watch misses changes on some file systems).
import { watch, type FSWatcher } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { scanStore, type RowCache, type StoreRow } from './store-scan.ts';

/** How often the store is read again without a watch event. */
const POLL_MS = 1000;

export class Live {
  private readonly clients = new Set<ServerResponse>();
  private rows: StoreRow[] = [];
  private sig = '';
  private timer: NodeJS.Timeout | undefined;
  private watcher: FSWatcher | undefined;
  private soon: NodeJS.Timeout | undefined;
  private last: Record<string, string> = {};
  private readonly cache: RowCache = new Map();

  constructor(private readonly root: string) {}

  start(): void {
    this.rescan();
    this.timer = setInterval(() => this.rescan(), POLL_MS);
    try {
      this.watcher = watch(this.root, { recursive: true }, () => {
        this.soon ??= setTimeout(() => { this.soon = undefined; this.rescan(); }, 100);
      });
      this.watcher.on('error', () => { this.watcher?.close(); this.watcher = undefined; });
    } catch { /* no recursive watch here: the poll alone */ }
  }

  current(): StoreRow[] { return this.rows; }

  /** The store read again; the rows sent when anything a page shows changed. */
  rescan(): void {
    const rows = scanStore(this.root, this.cache);
    const sig = JSON.stringify(rows);
    if (sig === this.sig) return;
    this.sig = sig;
    this.rows = rows;
    this.send('rows', sig);
  }

  /** A new page listening: it gets the last of each event at once. */
  add(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write('retry: 1000\n\n');
    for (const [event, data] of Object.entries(this.last)) res.write(`event: ${event}\ndata: ${data}\n\n`);
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
  }

  send(event: string, data: string): void {
    this.last[event] = data;
    for (const c of this.clients) c.write(`event: ${event}\ndata: ${data}\n\n`);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.soon) clearTimeout(this.soon);
    this.watcher?.close();
    for (const c of this.clients) c.end();
    this.clients.clear();
  }
}
