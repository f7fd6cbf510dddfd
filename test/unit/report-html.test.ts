import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderTimelineHtml, escapeHtml } from '../../src/report/html.ts';
import { buildTimeline, faultPhase } from '../../src/report/timeline-model.ts';
import type { CheckResult } from '../../checkers/types.ts';
import { bigHistory, build, doubleHolderEvents, doubleHolderResult } from './report-fixtures.ts';

const lanesOf = (html: string): string[] => [...html.matchAll(/<g class="lane" data-p="(\d+)"/g)].map((m) => m[1]!);
/** The markup of one lane group of the first window. */
const lane = (html: string, p: number): string => {
  const start = html.indexOf(`<g class="lane" data-p="${p}"`);
  return html.slice(start, html.indexOf('<g class="lane"', start + 1) >>> 0 || undefined);
};
const scriptOf = (html: string): string => html.slice(html.indexOf('<script>') + 8, html.lastIndexOf('</script>'));

test('double holder: anomaly in words on top, one lane per process, red band over the overlap on both lanes', () => {
  const r = doubleHolderResult();
  const html = renderTimelineHtml(build(doubleHolderEvents()), r, { lock: 'set-px-del' });
  assert.match(html, /<span class="verdict bad">INVALID<\/span>/);
  assert.ok(html.includes(escapeHtml(r.anomalies[0]!.message)), 'the anomaly message is on the page');
  assert.ok(html.includes(escapeHtml('double-holder · key "orders" · processes 0, 1 · lines 2–9 · 41.000 ms – 61.000 ms · during pause')));
  assert.match(html, /<a href="#w0" data-anom="0" data-win="w0" data-a="41" data-b="61">/, 'the list entry zooms to the overlap');
  assert.deepEqual(lanesOf(html), ['0', '1', '2']);
  for (const p of [0, 1]) assert.match(lane(html, p), /<rect [^>]*data-a="41" data-b="61" class="an dh an-0"/, `band on lane p${p}`);
  assert.doesNotMatch(lane(html, 2), /class="an /);
  // ok / fail / info bars styled apart; the info acquire is open-ended (no data-b).
  assert.match(lane(html, 1), /class="op fail"/);
  assert.match(lane(html, 2), /<rect [^>]*data-a="70" class="op info"/);
  assert.ok(html.includes('call:   0.100 ms (line 1)\nreturn: 1.200 ms (line 2), took 1.100 ms'), 'hover shows call and return times and lines');
  assert.match(html, /<th>lock<\/th><td>set-px-del<\/td>/);
});

test('fault periods are shaded bands across all lanes, labelled with the fault', () => {
  const html = renderTimelineHtml(build(doubleHolderEvents()), doubleHolderResult());
  const bands = [...html.matchAll(/<rect [^>]*height="(\d+)" data-a="5" data-b="58" class="fault full"/g)];
  assert.equal(bands.length, 1);
  assert.equal(bands[0]![1], String(3 * 28), 'the band spans the three lanes');
  assert.match(html, /class="flabel">pause client=0<\/text>/);
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
  assert.deepEqual(tl.bands.map((b) => [b.label, b.a, b.b]), [['clock-bump target=n1 delta_ms=3187', 24_200, 24_500], ['clock-bump target=n1 delta_ms=2875', 24_300, 24_400]]);
  assert.deepEqual(tl.marks.map((m) => [m.label, m.section]), [['run run=28', true]]);
  assert.ok(tl.windows[0]!.a0 >= 23_990 && tl.windows[0]!.a0 <= 24_000, `starts at the first event, not 0: ${tl.windows[0]!.a0}`);
});
