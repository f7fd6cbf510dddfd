// The HTTP server of `lockpick serve` (Node's own http): the guard first (Host, token, origin:
// ./guard.ts), then the routes: the pages (./pages.ts), the store's files (/files/…, each
// resolved inside the store: ./store-path.ts), the JSON the pages read, the event stream
// (./live.ts) and the course's start and stop (./course.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createReadStream, existsSync, realpathSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { basename, join, relative, sep } from 'node:path';
import { filesPrefix, refusal, tokenCookie, tokenSource, type Guarded } from './guard.ts';
import { contentType, inside, storePath } from './store-path.ts';
import { Live } from './live.ts';
import { Course } from './course.ts';
import { DEMOS } from '../demo/registry.ts';
import { entryText } from '../demo/entry.ts';
import { asLang, fromAcceptLanguage, type Lang } from '../i18n/lang.ts';
import { comparePage, coursePage, errorPage, indexPage, mergedPage, runPage, type PageContext } from './pages.ts';
import { scanStore, type StoreRow } from './store-scan.ts';

export interface ServeOptions { store: string; port: number; token: string; lang?: Lang }

export interface Served { server: Server; port: number; url: string; close(): Promise<void> }

/** Our own pages may frame the store's files and talk to this server, nothing else. */
const PAGE_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";
/** A file of the store runs sandboxed (an opaque origin): a page in a downloaded store cannot act as this server's own. */
const FILE_CSP = "sandbox allow-scripts allow-popups; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: 'self'; frame-src 'self'";

const HISTORY_PAGE = 200;
const LANG_COOKIE = 'lockpick_lang';

export async function startServer(o: ServeOptions): Promise<Served> {
  const root = realpathSync(o.store);
  const live = new Live(root);
  const course = new Course(root, (s) => live.send('course', JSON.stringify(s ?? null)));
  let guard: Guarded = { port: 0, token: o.token };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', `lockpick serve: ${(e as Error).message}\n`);
      else res.end();
    });
  });

  function send(res: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': type, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cache-control': 'no-store', ...headers });
    res.end(body);
  }
  const html = (res: ServerResponse, status: number, body: string) => send(res, status, 'text/html; charset=utf-8', body, { 'content-security-policy': PAGE_CSP });
  const json = (res: ServerResponse, status: number, data: unknown) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(data));

  function langOf(req: IncomingMessage, url: URL): { lang: Lang; set?: string } {
    const asked = asLang(url.searchParams.get('lang') ?? undefined);
    if (asked) return { lang: asked, set: `${LANG_COOKIE}=${asked}; SameSite=Strict; Path=/` };
    const cookie = /(?:^|;\s*)lockpick_lang=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    return { lang: asLang(cookie) ?? o.lang ?? fromAcceptLanguage(req.headers['accept-language']) };
  }

  function rowOf(id: string, kind: StoreRow['kind']): StoreRow | undefined {
    const find = (rows: StoreRow[]) => rows.find((r) => r.id === id && r.kind === kind);
    return find(live.current()) ?? find(scanStore(root));
  }

  /** A run dir or merged set named by its id under the store, resolved inside it. */
  function entry(id: string, kind: StoreRow['kind']): { row: StoreRow; dir: string } | { status: 403 | 404; why: string } {
    const r = storePath(root, id);
    if (!r.ok) return r;
    const row = rowOf(relative(root, r.path).split(sep).join('/'), kind);
    return row ? { row, dir: r.path } : { status: 404, why: `no ${kind === 'run' ? 'run' : 'merged shard set'} at ${id}` };
  }

  async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
    let text = '';
    for await (const chunk of req) { text += chunk; if (text.length > 4096) throw new Error('request body too large'); }
    try { const v = JSON.parse(text || '{}') as unknown; return v && typeof v === 'object' ? v as Record<string, unknown> : {}; } catch { return {}; }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const why = refusal(method, req.headers, url.searchParams, guard, url.pathname);
    if (why) return send(res, 403, 'text/plain; charset=utf-8', `lockpick serve: refused: ${why}\n`);
    if (url.pathname === '/favicon.ico') return void res.writeHead(204).end();
    const { lang, set } = langOf(req, url);
    const cookies = [...(set ? [set] : [])];
    if (tokenSource(req.headers, url.searchParams, guard) === 'query') {
      // The token leaves the address bar for an HttpOnly cookie: links and reloads carry it, scripts never see it.
      url.searchParams.delete('token');
      cookies.push(tokenCookie(guard));
      res.writeHead(303, { location: `${url.pathname}${url.search}`, 'set-cookie': cookies, 'referrer-policy': 'no-referrer', 'cache-control': 'no-store' });
      return void res.end();
    }
    if (cookies.length) res.setHeader('set-cookie', cookies);
    const path = url.pathname;
    const files = filesPrefix(o.token);
    const c: PageContext = { lang, title: 'lockpick', path, files };
    const notFound = (w = `no page at ${path}`) => html(res, 404, errorPage(c, 404, w));
    if (method === 'POST') {
      if (path === '/api/course/start') {
        const b = await body(req);
        const err = course.start(typeof b.name === 'string' ? b.name : '', lang);
        return json(res, err ? 409 : 200, err ? { error: err } : { ok: true });
      }
      if (path === '/api/course/stop') { await course.stop(); return json(res, 200, { ok: true }); }
      return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
    }
    if (method !== 'GET' && method !== 'HEAD') return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
    if (path === '/') return html(res, 200, indexPage({ ...c, title: 'store' }));
    if (path === '/api/rows') return json(res, 200, live.current());
    if (path === '/events') return live.add(res);
    if (path === '/course') return html(res, 200, coursePage({ ...c, title: 'course' }, DEMOS.map((d) => { const w = entryText(d, lang); return { name: d.name, title: w.title, expected: d.expected, fault: w.fault }; })));
    if (path === '/api/course') return json(res, 200, course.state ?? null);
    if (path === '/compare') {
      const a = entry(url.searchParams.get('a') ?? '', 'run');
      const b = entry(url.searchParams.get('b') ?? '', 'run');
      if (!('row' in a)) return html(res, a.status, errorPage(c, a.status, a.why));
      if (!('row' in b)) return html(res, b.status, errorPage(c, b.status, b.why));
      return html(res, 200, comparePage({ ...c, title: 'compare' }, a, b));
    }
    for (const [prefix, kind] of [['/run/', 'run'], ['/merged/', 'merged']] as const) {
      if (!path.startsWith(prefix)) continue;
      const e = entry(path.slice(prefix.length), kind);
      if (!('row' in e)) return html(res, e.status, errorPage(c, e.status, e.why));
      const relOf = (abs: string) => { try { const p = realpathSync(abs); return inside(p, root) ? relative(root, p).split(sep).join('/') : undefined; } catch { return undefined; } };
      return html(res, 200, kind === 'run' ? runPage({ ...c, title: e.row.lock }, e.row, e.dir) : mergedPage({ ...c, title: e.row.lock }, e.row, e.dir, relOf));
    }
    if (path.startsWith('/api/history/')) {
      const e = entry(path.slice('/api/history/'.length), 'run');
      if (!('row' in e)) return json(res, e.status, { error: e.why });
      return json(res, 200, await historyPage(join(e.dir, 'history.jsonl'), Number(url.searchParams.get('page') ?? 0), url.searchParams.get('q') ?? ''));
    }
    if (path.startsWith(`${files}/`)) {
      const r = storePath(root, path.slice(files.length + 1));
      if (!r.ok) return send(res, r.status, 'text/plain; charset=utf-8', `lockpick serve: ${r.why}\n`);
      const st = statSync(r.path);
      if (!st.isFile()) return notFound('not a file');
      res.writeHead(200, {
        'content-type': contentType(r.path), 'content-length': String(st.size), 'x-content-type-options': 'nosniff', 'cache-control': 'no-store',
        'content-security-policy': FILE_CSP, 'referrer-policy': 'no-referrer',
        ...(url.searchParams.has('download') ? { 'content-disposition': `attachment; filename="${basename(r.path).replace(/[^\w.-]/g, '_')}"` } : {}),
      });
      if (method === 'HEAD') return void res.end();
      createReadStream(r.path).pipe(res);
      return;
    }
    return notFound();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, '127.0.0.1', () => { server.off('error', reject); resolve(); });
  });
  const port = (server.address() as { port: number }).port;
  guard = { port, token: o.token };
  live.start();
  const url = `http://127.0.0.1:${port}/?token=${o.token}`;
  return {
    server, port, url,
    async close() {
      await course.stop();
      live.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One page of a history file (lines matching `q`, case-insensitive, when given), read as a stream. */
async function historyPage(file: string, page: number, q: string): Promise<{ page: number; pages: number; matches: number; lines: string[] }> {
  const p = Number.isInteger(page) && page >= 0 ? page : 0;
  const needle = q.toLowerCase();
  const lines: string[] = [];
  let matches = 0;
  if (existsSync(file)) {
    const rl = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
    for await (const line of rl) {
      if (!line || (needle && !line.toLowerCase().includes(needle))) continue;
      if (matches >= p * HISTORY_PAGE && matches < (p + 1) * HISTORY_PAGE) lines.push(line);
      matches++;
    }
  }
  return { page: p, pages: Math.ceil(matches / HISTORY_PAGE), matches, lines };
}
