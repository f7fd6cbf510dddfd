// What `lockpick serve` refuses before it reads a request: a Host header that is not this
// server on loopback (DNS rebinding), a request without the token (the URL printed, then an
// HttpOnly SameSite=Strict cookie), and a change asked from another site (Origin,
// Sec-Fetch-Site). Pure functions of the headers, so each refusal is tested without a socket.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface Guarded { port: number; token: string }

/** The cookie that keeps the token: one per port, as two servers on one host share cookies. */
export const cookieName = (port: number): string => `lockpick_token_${port}`;

/** The hosts a browser on this machine names this server by. */
export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

export function hostAllowed(host: string | undefined, port: number): boolean {
  return host !== undefined && allowedHosts(port).includes(host.toLowerCase());
}

function sameToken(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of the request's cookie, if it carries this server's. */
function cookieToken(header: string | undefined, port: number): string | undefined {
  if (!header) return undefined;
  const name = cookieName(port);
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

/** How the request proves it came from the user: the token in the query (the printed URL), in the cookie, or neither. */
export function tokenSource(headers: IncomingHttpHeaders, query: URLSearchParams, g: Guarded): 'query' | 'cookie' | undefined {
  if (sameToken(query.get('token') ?? undefined, g.token)) return 'query';
  if (sameToken(cookieToken(headers.cookie, g.port), g.token)) return 'cookie';
  return undefined;
}

/**
 * A request that changes something (starts or stops a catalogue run) must come from this
 * server's own page: Origin names it (browsers send Origin on every POST) and Sec-Fetch-Site,
 * when sent, says same-origin.
 */
export function sameOriginChange(headers: IncomingHttpHeaders, port: number): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = headers.origin;
  return typeof origin === 'string' && allowedHosts(port).some((h) => origin.toLowerCase() === `http://${h}`);
}

/**
 * Where the store's files are read: /files/<key>/…, the key derived from the token. A file
 * runs sandboxed (an opaque origin, server.ts), so the frames and links inside a timeline or a
 * demo page carry no cookie: the key in their path is their capability, to read the store only.
 */
export function filesPrefix(token: string): string {
  return `/files/${createHmac('sha256', token).update('lockpick serve: the store\'s files').digest('hex').slice(0, 32)}`;
}

/** Why a request is refused (403), or undefined. */
export function refusal(method: string, headers: IncomingHttpHeaders, query: URLSearchParams, g: Guarded, path = '/'): string | undefined {
  if (!hostAllowed(headers.host, g.port)) return `the Host header must be ${allowedHosts(g.port).join(' or ')}`;
  const read = method === 'GET' || method === 'HEAD';
  if (read && (path.startsWith(`${filesPrefix(g.token)}/`) || path === '/favicon.ico')) return undefined;   // the icon: none (204)
  if (!tokenSource(headers, query, g)) return 'no valid token: open the URL lockpick serve printed (it carries ?token=…)';
  if (method !== 'GET' && method !== 'HEAD' && !sameOriginChange(headers, g.port)) return 'a change must come from this server\'s own page (Origin / Sec-Fetch-Site)';
  return undefined;
}

export function tokenCookie(g: Guarded): string {
  return `${cookieName(g.port)}=${g.token}; HttpOnly; SameSite=Strict; Path=/`;
}
