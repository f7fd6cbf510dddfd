// The one way lockpick makes a toxiproxy-node-client: every request it sends gets a deadline.
// The library's requests (fetch) have none, so a Toxiproxy server that takes a request and never
// answers (a stopped process, a full accept queue) would hold a run, or its teardown, forever.
import { Toxiproxy } from 'toxiproxy-node-client';

/** How long one request to the proxy's API may take (it applies them one at a time, each in milliseconds). */
export const API_ANSWER_MS = 30_000;

/** What the library's HttpClient does underneath (TypeScript-private there, an ordinary method at run time). */
interface Fetching { doFetch(url: string, init: RequestInit): Promise<Response> }

/** A client of the fault proxy at `url` whose every request fails after `answerMs` without an answer, naming the proxy and the wait. */
export function faultProxyClient(url: string, answerMs = API_ANSWER_MS): Toxiproxy {
  const tp = new Toxiproxy(url);
  const api = tp.getApi() as unknown as Fetching;
  if (typeof api.doFetch !== 'function') throw new Error('lockpick: toxiproxy-node-client changed (HttpClient.doFetch is gone): src/env/fault-proxy-client.ts must be brought up to date');
  const doFetch = api.doFetch.bind(api);
  api.doFetch = async (u, init) => {
    try {
      return await doFetch(u, { ...init, signal: AbortSignal.timeout(answerMs) });
    } catch (e) {
      // The library wraps the abort as ToxiproxyError("TimeoutError", …): say what waited, on what, how long.
      if ((e as { name?: string; message?: string })?.name === 'TimeoutError' || /TimeoutError|aborted due to timeout/.test(String((e as Error)?.message))) {
        throw new Error(`${init.method ?? 'GET'} ${u}: no answer from the fault proxy in ${answerMs / 1000} s`, { cause: e });
      }
      throw e;
    }
  };
  return tp;
}
