import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderTimelineHtml, escapeHtml, type TimelineExtras } from '../../src/report/html.ts';
import { buildTimeline, faultPhase } from '../../src/report/timeline-model.ts';
import { faultWords } from '../../src/report/timeline-story.ts';
import { readHistory } from '../../src/history/index.ts';
import { checkHistory } from '../../checkers/index.ts';
import { checkLiveness } from '../../checkers/liveness.ts';
import { checkResource, type ResourceEntry } from '../../checkers/resource.ts';
import type { CheckResult } from '../../checkers/types.ts';
import { bigHistory, build, doubleHolderEvents, doubleHolderResult } from './report-fixtures.ts';

const lanesOf = (html: string): string[] => [...html.matchAll(/<g class="lane [a-z]+" data-lane="([^"]+)"/g)].map((m) => m[1]!.replace(/^p/, ''));
/** The markup of one lane group of the first window (a process number: its p<n> lane; a string: that lane id). */
const lane = (html: string, p: number | string): string => {
  const start = html.indexOf(`data-lane="${typeof p === 'number' ? `p${p}` : p}"`);
  assert.ok(start >= 0, `lane ${p} drawn`);
  const next = html.indexOf('<g class="lane ', start + 1);
  return html.slice(start, next < 0 ? html.indexOf('</svg>', start) : next);
};
const scriptOf = (html: string): string => html.slice(html.indexOf('<script>') + 8, html.lastIndexOf('</script>'));

test('double holder: anomaly in words on top, one lane per process, red band over the overlap on both lanes', () => {
  const r = doubleHolderResult();
  const html = renderTimelineHtml(build(doubleHolderEvents()), r, { lock: 'set-px-del' });
  assert.match(html, /<span class="verdict bad">INVALID<\/span>/);
  assert.ok(html.includes(escapeHtml(r.anomalies[0]!.message)), 'the anomaly message is on the page');
  // Times from the history's first event (0.1 ms): the overlap 41–61 ms reads 40.9–60.9 ms.
  assert.ok(html.includes(escapeHtml('double-holder · key "orders" · processes 0, 1 · lines 2–9 · 40.900 ms – 60.900 ms · during pause')));
  assert.match(html, /<a href="#a1" data-anom="0" data-win="w0" data-a="40.9" data-b="60.9">/, 'the list entry links #a1 and zooms to the overlap');
  assert.deepEqual(lanesOf(html), ['0', '1', '2']);
  for (const p of [0, 1]) assert.match(lane(html, p), /<rect [^>]*data-a="40.9" data-b="60.9" class="an dh an-0"/, `band on lane p${p}`);
  assert.doesNotMatch(lane(html, 2), /class="an /);
  // ok / fail / info bars styled apart; the info acquire is open-ended (no data-b).
  assert.match(lane(html, 1), /class="op fail"/);
  assert.match(lane(html, 2), /<rect [^>]*data-a="69.9" class="op info"/);
  assert.ok(html.includes('call:   0.000 ms (line 1)\nreturn: 1.100 ms (line 2), took 1.100 ms'), 'hover shows call and return times and lines');
  assert.match(html, /<th>lock<\/th><td>set-px-del<\/td>/);
});

test('each fault has its own row with its parameters in words', () => {
  const html = renderTimelineHtml(build(doubleHolderEvents()), doubleHolderResult());
  const rows = [...html.matchAll(/<rect [^>]*data-a="4.9" data-b="57.9" class="frow k-pause"/g)];
  assert.equal(rows.length, 1);
  assert.match(html, /class="flabel" data-tip="[^"]*">pause server 0 for 53 ms<\/text>/);
});

test('Jepsen-style nemesis records (:start/:stop, invoke then info) pair into one band each', () => {
  assert.deepEqual(faultPhase('partition-start'), { kind: 'partition', phase: 'start' });
  assert.deepEqual(faultPhase('stop-partition'), { kind: 'partition', phase: 'stop' });
  assert.deepEqual(faultPhase('start'), { kind: 'fault', phase: 'start' });
  assert.deepEqual(faultPhase('kill'), { kind: 'kill', phase: 'once' });
  const ev = [
    { type: 'invoke', f: 'acquire', process: 0, time: 0 }, { type: 'ok', f: 'acquire', process: 0, time: 1e6 },
    { type: 'info', f: 'start', process: 'nemesis', time: 2e6, value: 'isolate n1' }, { type: 'info', f: 'start', process: 'nemesis', time: 3e6 },
    { type: 'info', f: 'kill', process: 'nemesis', time: 4e6 },
    { type: 'info', f: 'stop', process: 'nemesis', time: 6e6 }, { type: 'info', f: 'stop', process: 'nemesis', time: 7e6 },
    { type: 'invoke', f: 'release', process: 0, time: 8e6 }, { type: 'ok', f: 'release', process: 0, time: 9e6 },
  ];
  const r: CheckResult = { valid: true, model: 'mutex', ops: 2, keys: 1, anomalies: [], keys_detail: {}, elapsed_ms: 0 };
  const tl = buildTimeline(build(ev), r);
  assert.deepEqual(tl.bands.map((b) => [b.kind, b.a, b.b, b.open]), [['fault', 2, 7, false]]);
  assert.deepEqual(tl.marks.map((m) => [m.label, m.a]), [['kill', 4]]);
  assert.deepEqual(tl.bands[0]!.label, 'fault isolate n1');
});

test('a nonlinearizable window outlines its ops', () => {
  const h = build(doubleHolderEvents());
  const r = doubleHolderResult();
  r.anomalies = [{ type: 'nonlinearizable', key: 'orders', processes: [1], lines: [13, 14], ops: [2, 3, 5], message: 'no order of the 3 operations fits' }];
  const html = renderTimelineHtml(h, r);
  assert.equal([...html.matchAll(/class="op ok bad an-0( culprit)?"/g)].length, 3);
  assert.equal([...html.matchAll(/class="op ok bad an-0 culprit"/g)].length, 1, "the op on the anomaly's lines stands out");
  assert.match(html, /class="an nlw an-0"/);
});

test('the page is self-contained: no external URL, stylesheet, script or image; the script parses', () => {
  const html = renderTimelineHtml(build(doubleHolderEvents()), doubleHolderResult());
  assert.doesNotMatch(html, /https?:\/\//);
  assert.doesNotMatch(html, /<link|<img|\ssrc=|@import|url\((?!#)/);
  assert.doesNotThrow(() => new Function(scriptOf(html)));
});

test('user text cannot inject markup', () => {
  const ev = doubleHolderEvents().map((e) => ({ ...e, key: e.process === 'nemesis' ? undefined : '</script><b>x' }));
  const r = doubleHolderResult();
  r.anomalies[0]!.key = '</script><b>x';
  r.anomalies[0]!.message = '<img src=x onerror=alert(1)>';
  const html = renderTimelineHtml(build(ev, '<evil>.jsonl'), r);
  assert.doesNotMatch(html, /<img|<b>x|<evil>/);
  assert.equal(html.split('</script>').length, 2);
});

test('a key filter appears only when there are several keys', () => {
  const one = renderTimelineHtml(build(doubleHolderEvents()), doubleHolderResult());
  assert.doesNotMatch(one, /id="keyf"/);
  const ev = [...doubleHolderEvents(), { type: 'invoke', f: 'acquire', process: 7, key: 'payments', time: 95e6 }, { type: 'ok', f: 'acquire', process: 7, key: 'payments', time: 96e6 }];
  const two = renderTimelineHtml(build(ev), doubleHolderResult());
  assert.match(two, /<select id="keyf"><option value="">all 2 keys<\/option><option value="orders">orders<\/option><option value="payments">payments<\/option><\/select>/);
});

test('without times the axis is event order', () => {
  const ev = doubleHolderEvents().map(({ time: _t, ...e }) => e);
  const html = renderTimelineHtml(build(ev), { ...doubleHolderResult(), anomalies: doubleHolderResult().anomalies.map(({ times: _t, ...a }) => a) });
  assert.match(html, /axis: event order/);
  // Overlap from the second acquire ok (line 7, event #6) to the release call (line 9, event #8).
  assert.match(html, /data-a="6" data-b="8" class="an dh an-0"/);
});

test('a million-op history is cut to windows around the anomaly and stays under 2 MB', () => {
  const { h, r } = bigHistory(1_000_000);
  const html = renderTimelineHtml(h, r);
  assert.ok(html.length < 2_000_000, `${html.length} bytes`);
  assert.match(html, /This history has 1,000,000 ops: it was cut/);
  assert.match(html, /planted double holder near op 500000/);
  assert.match(html, /Window 1: ops 499975–500027/);
  assert.ok(lanesOf(html).length <= 8);
  assert.doesNotMatch(html, /https?:\/\//);
});

test('a big history with no anomalies shows its start and says it was cut', () => {
  const { h } = bigHistory(20_000);
  const r: CheckResult = { valid: true, model: 'mutex', ops: 20_000, keys: 1, anomalies: [], keys_detail: { k: { valid: true, ops: 20_000 } }, elapsed_ms: 10 };
  const html = renderTimelineHtml(h, r);
  assert.match(html, /it was cut to keep this page small\. Drawn: 1 window \(51 ops\) at the start of the run/);
  assert.match(html, /No anomalies: the history is consistent with the model/);
});

test("the runner's records: overlapping faults pair by id, run-start/run-end are sections, a late history starts at its first event", () => {
  const ev = [
    { type: 'info', f: 'run-start', process: 'nemesis', value: { run: 28 }, time: 24_000e6 },
    { type: 'invoke', f: 'acquire', process: 61, key: 'k', time: 24_100e6 }, { type: 'ok', f: 'acquire', process: 61, key: 'k', time: 24_101e6 },
    { type: 'info', f: 'clock-bump-start', process: 'nemesis', value: { id: 'f48', target: 'n1', params: { delta_ms: 3187 } }, time: 24_200e6 },
    { type: 'info', f: 'clock-bump-start', process: 'nemesis', value: { id: 'f47', target: 'n1', params: { delta_ms: 2875 } }, time: 24_300e6 },
    { type: 'info', f: 'clock-bump-stop', process: 'nemesis', value: { id: 'f47' }, time: 24_400e6 },
    { type: 'info', f: 'clock-bump-stop', process: 'nemesis', value: { id: 'f48' }, time: 24_500e6 },
    { type: 'invoke', f: 'release', process: 61, key: 'k', time: 24_600e6 }, { type: 'ok', f: 'release', process: 61, key: 'k', time: 24_601e6 },
    { type: 'info', f: 'run-end', process: 'nemesis', value: { run: 28 }, time: 24_700e6 },
  ];
  const r: CheckResult = { valid: true, model: 'mutex', ops: 2, keys: 1, anomalies: [], keys_detail: {}, elapsed_ms: 0 };
  const tl = buildTimeline(build(ev), r);
  assert.deepEqual(tl.bands.map((b) => [b.label, b.a, b.b]), [['clock-bump target=n1 delta_ms=3187', 200, 500], ['clock-bump target=n1 delta_ms=2875', 300, 400]]);
  assert.deepEqual(tl.marks.map((m) => [m.label, m.section]), [['run run=28', true]]);
  assert.equal(tl.windows[0]!.a0, 0, 'times are ms from the run start, not from the start of the search (24 s)');
  const html = renderTimelineHtml(build(ev), r);
  assert.match(html, />clock of n1 jumps \+3187 ms for 300 ms<\/text>/);
  assert.match(html, />clock of n1 jumps \+2875 ms for 100 ms<\/text>/);
  assert.match(html, /data-lane="node:n1"/, 'a server node the faults target has a lane');
  // The header counts the faults' records (two starts, two stops), not the run's own sections.
  assert.match(html, / · 4 fault events · /);
});

// Real counterexamples (lockpick run, copied into histories/): what the page must say about them.
const real = async (file: string, extras?: TimelineExtras): Promise<string> => {
  const h = await readHistory(file);
  return renderTimelineHtml(h, checkHistory(h, { model: 'mutex' }), undefined, extras);
};

test('DEL unlock + pause: client lanes, lease and belief, the gap, who acquired in it, the stale unlock at the unlock', async () => {
  const html = await real('histories/timeline-del-pause.jsonl');
  assert.deepEqual(lanesOf(html), ['c1', 'c3'], 'lanes are the clients, not p105/p106');
  // The anomalies' words name the clients as the lanes do (and as the text report does).
  assert.match(html, /<span class="num">#1<\/span> <b class="atype">double holder<\/b> — c1&#39;s acquire at line 11 returned ok at line 12, but c3 held lock/);
  assert.match(lane(html, 'c3'), /class="pd"[^>]*>p106<\/text>/, 'the process id is the detail');
  // c3 (p106) called acquire at 395.955 ms (ms from run-start), it returned at 397.135 ms, with an 800 ms lease:
  // the server keeps it until 1195.955 ms at least, 1197.135 ms at the latest (granted in between).
  assert.match(lane(html, 'c3'), /data-a="397.1352" data-b="1195.9553" class="lease"/);
  assert.match(lane(html, 'c3'), /data-a="1195.9553" data-b="1197.1352" class="lease-unsure"/);
  assert.match(lane(html, 'c3'), /data-a="1197.1352" data-b="1590.7759" class="gap"/, 'past the lease (return + lease) until the release call');
  assert.match(lane(html, 'c3'), /data-a="1197.1352"[^>]*class="note n-lease-end"[^>]*>lease ends</);
  assert.match(lane(html, 'c3'), /data-a="1591.5894"[^>]*class="note n-stale-unlock an-1"[^>]*>✕ stale unlock</, 'marked where the unlock had taken effect by: its return');
  assert.match(lane(html, 'c1'), /data-a="1212.8608"[^>]*class="note n-gap-acquire"[^>]*>acquires in c3&#39;s gap</);
  assert.match(html, /class="flabel" data-tip="[^"]*">pause c3 1186 ms \(&gt; lease 800 ms\) at in-critical-section<\/text>/);
  assert.match(lane(html, 'c3'), /class="fault k-client-pause"/, 'the pause shades the lane of the client it paused');
  assert.doesNotMatch(lane(html, 'c1'), /class="fault /, '… and no other');
  assert.match(html, /<a href="#a2" data-anom="1" data-win="w0" data-a="1590.7759"/, 'anomaly #2 links to the unlock');
  assert.match(html, /Whole run: 0.000 ms – 1600.825 ms/, 'a 1.6 s run reads 0–1.6 s, not 62 s');
  for (const cls of ['lease', 'gap', 'tick-lease-end', 'tick-gap-acquire', 'tick-stale-unlock', 'frow', 'an dh']) assert.match(html.slice(html.indexOf('class="legend"'), html.indexOf('</span></div>')), new RegExp(`class="${cls}"`), `legend has ${cls}`);
});

test("Kleppmann's Redlock scenario: both partitions and the clock jump, each on its own row and on the node lanes", async () => {
  const html = await real('histories/timeline-kleppmann.jsonl');
  assert.deepEqual(lanesOf(html), ['c1', 'c2', 'node:n1', 'node:n2', 'node:n3', 'node:n4', 'node:n5']);
  for (const words of ['partition clients c1 | nodes n4,n5 for 3313 ms', 'partition clients c2 | nodes n1,n2 for 3297 ms', 'clock of n3 jumps +20 s for 1313 ms']) {
    assert.equal([...html.matchAll(new RegExp(`class="flabel"[^>]*>${escapeHtml(words).replace(/[|+]/g, '\\$&')}</text>`, 'g'))].length, 1, words);
  }
  assert.match(lane(html, 'node:n3'), /class="nfault k-clock-bump"/);
  assert.match(lane(html, 'node:n4'), /class="nfault k-partition"/);
  assert.match(lane(html, 'c1'), /class="fault k-partition"/);
});

test('renewals extend the lease; fencing tokens are written on the hold', () => {
  const ms = (x: number): number => x * 1e6;
  const ev = [
    { type: 'invoke', f: 'acquire', process: 0, key: 'k', time: ms(0) }, { type: 'ok', f: 'acquire', process: 0, key: 'k', time: ms(2), lease_ms: 100, value: { token: 7 } },
    { type: 'invoke', f: 'renew', process: 0, key: 'k', time: ms(80) }, { type: 'ok', f: 'renew', process: 0, key: 'k', time: ms(81), lease_ms: 100 },
    { type: 'invoke', f: 'release', process: 0, key: 'k', time: ms(150) }, { type: 'ok', f: 'release', process: 0, key: 'k', time: ms(151) },
  ];
  const h = build(ev);
  const html = renderTimelineHtml(h, checkHistory(h, { model: 'mutex' }));
  assert.match(html, /data-a="2" data-b="151" class="lease"/, 'renewed at 80 ms for 100 ms: still granted when released at 151 ms');
  assert.doesNotMatch(html, /class="gap"/);
  assert.match(html, /class="note n-token"[^>]*>token 7</);
});

test('fault words carry every parameter', () => {
  assert.equal(faultWords('client-pause', { client: 'c1', point: 'in-critical-section', duration_ms: 1088 }, 1090, 800), 'pause c1 1088 ms (> lease 800 ms) at in-critical-section');
  assert.equal(faultWords('kill', { id: 'f1', target: 'n2' }, 300), 'kill server n2, down for 300 ms');
  assert.equal(faultWords('clock-strobe', { target: 'n1', params: { delta_ms: -5000, period_ms: 200 } }, 1000), 'clock of n1 strobes −5000 ms every 200 ms for 1000 ms');
  assert.equal(faultWords('latency', { target: ['client:c2'], params: { latency_ms: 150 } }, undefined), 'slow links of c2 by 150 ms');
  assert.equal(faultWords('brand-new', { id: 'f9', target: 'n1', params: { x: 1 } }, 20), 'brand-new target=n1 x=1 for 20 ms');
  // session-kill's start record as a run writes it (it dumped as "session-kill target=c2 clients=[…] sessions=1 said=… began=…").
  assert.equal(faultWords('session-kill', { target: 'c2', clients: ['c2'], sessions: 1, said: 'KILL CONNECTION 17 on n1', began: 8552940370, point: 'in-critical-section' }, 3),
    "the server ends c2's session (KILL CONNECTION 17 on n1) at in-critical-section");
});

test('every registered fault kind has words of its own for its band (a record dumped as it is is for kinds lockpick does not know)', async () => {
  const { KINDS } = await import('../../nemesis/kinds.ts');
  for (const kind of KINDS.map((k) => k.schema.kind)) {
    assert.doesNotMatch(faultWords(kind, { target: 'n1', client: 'c1', params: {} }, 100), /=/, `${kind}: its band words are its record dumped`);
  }
});

test('liveness: the stuck interval is drawn on the lock lane with words', () => {
  const ms = (x: number): number => x * 1e6;
  const ev: Record<string, unknown>[] = [
    { type: 'invoke', f: 'acquire', process: 0, key: 'k0', time: ms(0), client: 'c1' }, { type: 'ok', f: 'acquire', process: 0, key: 'k0', time: ms(1) },
    { type: 'invoke', f: 'release', process: 0, key: 'k0', time: ms(100) }, { type: 'ok', f: 'release', process: 0, key: 'k0', time: ms(100), value: { lapse: true } },
  ];
  for (let i = 0; i < 5; i++) ev.push({ type: 'invoke', f: 'acquire', process: 1, key: 'k0', time: ms(200 + i * 1000), client: 'c2' }, { type: 'fail', f: 'acquire', process: 1, key: 'k0', time: ms(900 + i * 1000) });
  const h = build(ev);
  const live = checkLiveness(h, { boundMs: 1000, leased: false });
  assert.equal(live.violations.length, 1);
  const r: CheckResult = { ...checkHistory(h, { model: 'mutex' }), valid: false, anomalies: live.violations };
  const html = renderTimelineHtml(h, r, undefined, { clients: new Map([[0, 'c1'], [1, 'c2']]) });
  assert.deepEqual(lanesOf(html), ['c1', 'c2', 'key:k0']);
  assert.match(lane(html, 'key:k0'), /data-a="100" data-b="4900" class="stuck an-0"/);
  assert.match(lane(html, 'key:k0'), />k0 stuck 4800 ms after c1 was gone: nobody could acquire it</);
  assert.match(html, /class="stuck"/, 'in the legend');
});

test('the resource lane: a stale write accepted and a write the fencing check rejected, at the end of their holds', () => {
  const h = build(doubleHolderEvents());
  const entries: ResourceEntry[] = [
    { key: 'orders', seq: 0, op: 'read', client: 'c1', process: 0, prev: 0, accepted: true },
    { key: 'orders', seq: 1, op: 'read', client: 'c2', process: 1, prev: 0, accepted: true },
    { key: 'orders', seq: 2, op: 'write', client: 'c2', process: 1, prev: 0, accepted: true, value: 1, read: 0 },
    { key: 'orders', seq: 3, op: 'write', client: 'c1', process: 0, prev: 1, accepted: true, value: 1, read: 0 },
  ];
  const resource = checkResource(entries, { orders: 1 });
  const html = renderTimelineHtml(h, doubleHolderResult(), undefined, { resource, resourceEntries: entries });
  const res = lane(html, 'resource');
  assert.match(res, /data-a="60.9"[^>]*class="note n-stale-write"[^>]*>! p0 stale write 0→1 on 1</, "at the end of p0's hold (its release call)");
  assert.match(res, /data-a="89.9"[^>]*class="note n-write"[^>]*>p1 writes 1</);
  assert.match(html, /class="resnote">resource: 2 of 2 writes accepted/);
  const fenced: ResourceEntry[] = [{ key: 'orders', seq: 0, op: 'write', client: 'c1', process: 0, prev: 1, accepted: false, token: 3, max: 4, value: 2, read: 1 }];
  const html2 = renderTimelineHtml(h, doubleHolderResult(), undefined, { resource: checkResource(fenced, { orders: 1 }), resourceEntries: fenced });
  assert.match(lane(html2, 'resource'), /class="note n-rejected"[^>]*>✕ p0 write rejected \(token 3 &lt; 4\)</);
  // The check's result alone (no log): its stale write at the end of the writer's hold.
  const html3 = renderTimelineHtml(h, doubleHolderResult(), undefined, { resource });
  assert.match(lane(html3, 'resource'), /data-a="60.9"[^>]*class="note n-stale-write"[^>]*>! p0 stale-write</);
});

test('a cut history has an overview strip of the whole run linking to its windows', () => {
  const { h, r } = bigHistory(100_000);
  const html = renderTimelineHtml(h, r);
  assert.match(html, /<section class="overview">/);
  assert.match(html, /<a href="#w0"><rect [^>]*class="ovwin">/);
  assert.equal([...html.matchAll(/class="ovan"/g)].length, 1);
});

test('a failed release ends the belief (the client left its critical section) but not the lease; a lease that may be gone before its acquire returned is all unsure', async () => {
  const html = await real('histories/redlock-lease-ran-out.jsonl');
  // p2 acquired at 79 ms (called at 10 ms, 800 ms lease), its release at 150 ms failed: it believes until 150 ms, the servers hold until 810 ms.
  assert.match(lane(html, 2), /data-a="79" data-b="150" class="hold"/);
  assert.match(lane(html, 2), /data-a="79" data-b="810" class="lease"/);
  assert.match(lane(html, 2), /data-a="810" data-b="879" class="lease-unsure"/, 'granted between the call (10 ms) and the return (79 ms)');
  // p1 called at 12 ms, returned ok at 975 ms with an 800 ms lease: it may be gone from 812 ms (before it returned),
  // surely by 1775 ms (return + lease); its release at 1100 ms worked, so it is drawn as maybe expired, not as past its lease.
  assert.doesNotMatch(lane(html, 1), /class="lease"/);
  assert.match(lane(html, 1), /data-a="975" data-b="1102" class="lease-unsure"[^>]*may end from 812.000 ms \(call \+ lease, before the acquire returned\)/, 'ended by its release (ok at 1102 ms)');
  assert.doesNotMatch(lane(html, 1), /class="gap"/);
});

test('the lease from the grant: ends between call + lease and return + lease; a renewal extends both bounds; a failover band from its first step', () => {
  const t = (ms: number): number => 1_000_000_000 + ms * 1e6;
  const ev = [
    { type: 'info', f: 'run-start', process: 'nemesis', value: { run: 1 }, time: t(0) },
    { type: 'invoke', f: 'acquire', process: 0, key: 'k', time: t(0) },
    { type: 'ok', f: 'acquire', process: 0, key: 'k', time: t(100), lease_ms: 800 },
    { type: 'invoke', f: 'renew', process: 0, key: 'k', time: t(500) },
    { type: 'ok', f: 'renew', process: 0, key: 'k', time: t(700), lease_ms: 800 },
    // Written when Sentinel had promoted n2, 4000 ms after the failover began (replication cut at 1000 ms).
    { type: 'info', f: 'failover-start', process: 'nemesis', value: { id: 'f1', params: { how: 'kill', lead_ms: 1500 }, old_primary: 'n1', new_primary: 'n2', how: 'kill', promoted_after_ms: 4000 }, time: t(5000) },
    { type: 'invoke', f: 'release', process: 0, key: 'k', time: t(1600) },
    { type: 'ok', f: 'release', process: 0, key: 'k', time: t(1602) },
    { type: 'info', f: 'failover-stop', process: 'nemesis', value: { id: 'f1', old_primary: 'n1' }, time: t(6000) },
  ].sort((p, q) => p.time - q.time);
  const r: CheckResult = { valid: true, model: 'mutex', ops: 2, keys: 1, anomalies: [], keys_detail: {}, elapsed_ms: 0 };
  const h = build(ev);
  assert.deepEqual(buildTimeline(h, r).bands.map((b) => [b.kind, b.a, b.at, b.b]), [['failover', 1000, 5000, 6000]]);
  const html = renderTimelineHtml(h, r);
  // Renewed: called at 500 ms (→ 1300), returned at 700 ms (→ 1500); past the lease from 1500 ms to the release call at 1600 ms.
  assert.match(lane(html, 0), /data-a="100" data-b="1300" class="lease"/);
  assert.match(lane(html, 0), /data-a="1300" data-b="1500" class="lease-unsure"[^>]*data-tip="the lease ends in here: granted between the acquire&#39;s call and its return/);
  assert.match(lane(html, 0), /data-a="1500" data-b="1600" class="gap"/);
  assert.match(html, /data-a="1000" data-b="6000" class="flabel"[^>]*>failover: n1 cut off, n2 promoted after 4000 ms for 5000 ms</);
  const steps = [...html.matchAll(/<line [^>]*data-a="(\d+)" class="fstep" data-tip="[^"]*step at [\d.]+ ms: ([^"]+)"/g)].map((m) => [Number(m[1]), m[2]]);
  assert.deepEqual(steps, [[1000, 'replication of n1 cut'], [2500, 'n1 killed'], [5000, 'n2 promoted']]);
});

test('a fault that records its steps is drawn from its first recorded step to its heal, each step where it happened; a failed start is drawn to its stop', () => {
  const t = (ms: number): number => 1_000_000_000 + ms * 1e6;
  const nem = (f: string, ms: number, value: Record<string, unknown>) => ({ type: 'info', f, process: 'nemesis', value, time: t(ms) });
  const f1 = { id: 'f1', params: { how: 'kill', cut_replication: true } };
  const ev = [
    nem('run-start', 0, { run: 1 }),
    nem('failover-step', 700, { ...f1, step: 'replication of n1 cut', node: 'n1' }),
    { type: 'invoke', f: 'acquire', process: 0, key: 'k', time: t(900), client: 'c1' },
    { type: 'ok', f: 'acquire', process: 0, key: 'k', time: t(910), lease_ms: 8000 },
    nem('failover-step', 2100, { ...f1, step: 'n1 killed', node: 'n1' }),
    nem('failover-step', 4900, { ...f1, step: 'n2 promoted', node: 'n2' }),
    nem('failover-start', 4900, { ...f1, old_primary: 'n1', new_primary: 'n2', how: 'kill', promoted_after_ms: 4300 }),
    { type: 'invoke', f: 'release', process: 0, key: 'k', time: t(5200), client: 'c1' },
    { type: 'ok', f: 'release', process: 0, key: 'k', time: t(5202) },
    nem('failover-step', 5500, { ...f1, step: 'n1 back, until Sentinel demotes it', node: 'n1' }),
    nem('failover-stop', 6000, { ...f1, old_primary: 'n1', demoted: true }),
    // A second failover whose promotion never came: its cut and kill took effect, so it is drawn to its stop.
    nem('failover-step', 6100, { id: 'f2', step: 'replication of n2 cut' }),
    nem('failover-step', 6200, { id: 'f2', step: 'n2 paused' }),
    nem('failover-start-failed', 7000, { id: 'f2', error: 'Sentinel did not promote a replica' }),
    nem('failover-stop', 7100, { id: 'f2', old_primary: 'n2' }),
  ];
  const r: CheckResult = { valid: true, model: 'mutex', ops: 2, keys: 1, anomalies: [], keys_detail: {}, elapsed_ms: 0 };
  const h = build(ev);
  const tl = buildTimeline(h, r);
  // From the first step (700 ms), not from the promotion (4900 ms) nor the lead-in the start record states (600 ms).
  assert.deepEqual(tl.bands.map((b) => [b.kind, b.a, b.at, b.b, b.open, b.failed ?? false]), [['failover', 700, 4900, 6000, false, false], ['failover', 6100, 7000, 7100, false, true]]);
  assert.deepEqual(tl.marks.filter((m) => !m.section), [], 'steps are no stray marks');
  assert.deepEqual(faultPhase('failover-step'), { kind: 'failover', phase: 'step' });
  assert.deepEqual(faultPhase('failover-start-failed'), { kind: 'failover', phase: 'start', failed: true });
  const html = renderTimelineHtml(h, r);
  assert.match(html, /data-a="700" data-b="6000" class="flabel"[^>]*>failover: n1 cut off, n2 promoted after 4300 ms for 5300 ms</);
  assert.match(html, /data-a="6100" data-b="7100" class="flabel"[^>]*>failover failed to start: Sentinel did not promote a replica</);
  const steps = [...html.matchAll(/<line [^>]*data-a="(\d+)" class="fstep" data-tip="[^"]*step at [\d.]+ ms: ([^"]+)"/g)].map((m) => [Number(m[1]), m[2]]);
  assert.deepEqual(steps, [[700, 'replication of n1 cut'], [2100, 'n1 killed'], [4900, 'n2 promoted'], [5500, 'n1 back, until Sentinel demotes it'], [6100, 'replication of n2 cut'], [6200, 'n2 paused']]);
});
