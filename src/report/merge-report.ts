// What `lockpick merge` writes and says: the merged verdict in words, results.json, a
// junit.xml with one test case per distinct failure (named by its class, stable from run to
// run, so a CI dashboard tracks each failure), and an index.html linking every timeline.
import { join, relative } from 'node:path';
import { makeDir } from '../make-dir.ts';
import { outputError, writeOutput } from '../output.ts';
import type { MergeResult } from '../runner/merge.ts';
import { describeCoverage } from '../runner/coverage.ts';
import { describeCells } from '../runner/fault-cells.ts';
import { cellsSection, cellsCss } from './cells-html.ts';
import { escapeHtml } from './html.ts';
import { xmlEscape } from './junit.ts';

const VERDICT_WORD = { true: 'SAFE', false: 'UNSAFE', unknown: 'INCONCLUSIVE' } as const;
export const verdictWord = (m: Pick<MergeResult, 'verdict'>): string => VERDICT_WORD[String(m.verdict) as 'true' | 'false' | 'unknown'];

export function describeMerge(m: MergeResult): string {
  const lines = [`${verdictWord(m)}: ${m.lock} under ${m.faults.join(',') || 'no faults'}, ${m.shards.length} of ${m.total} shard(s) merged`];
  for (const s of m.shards) lines.push(`  shard ${s.shard}: ${s.verdict === 'missing-results' ? 'no results' : VERDICT_WORD[String(s.verdict) as 'true']}${s.interrupted ? ' (interrupted)' : ''}, ${s.runs} run(s); ${s.dir}`);
  if (m.failures.length) {
    lines.push(`distinct failures: ${m.failures.length}`);
    m.failures.forEach((f, i) => lines.push(`  ${i + 1}. ${f.class}${f.cause ? ` (${f.cause})` : ''}: found by shard(s) ${f.shards.join(', ')}, ${f.runs} violating run(s)${f.confirmed ? '' : ' (not confirmed again)'}${f.timeline ? `\n     timeline: ${f.timeline}` : f.counterexample ? `\n     counterexample: ${f.counterexample}` : ''}${f.replay ? `\n     replay:   lockpick run --replay ${f.replay}` : ''}`));
  }
  if (m.gaps.length) {
    lines.push(m.verdict === false ? 'also, not every shard finished:' : 'not SAFE, because:');
    for (const g of m.gaps) lines.push(`  - ${g}`);
  }
  lines.push(`coverage summed: ${describeCoverage(m.coverage)}`);
  if (m.coverage.cells) lines.push(`${describeCells(m.coverage.cells)} (the shards' cells summed)`);
  return lines.join('\n');
}

export function renderMergeJUnit(m: MergeResult): string {
  const suite = `lockpick merge ${m.lock}`;
  const cases: string[] = [];
  let failures = 0, errors = 0;
  const attr = (o: Record<string, string>) => Object.entries(o).map(([k, v]) => ` ${k}="${xmlEscape(v)}"`).join('');
  for (const f of m.failures) {
    failures++;
    const body = [`UNSAFE: ${f.class}`, ...(f.cause ? [f.cause] : []), `found by shard(s) ${f.shards.join(', ')}; ${f.runs} violating run(s)${f.confirmed ? '; its minimal plan broke the lock each time it was run' : ''}`,
      ...(f.replay ? [`replay:   lockpick run --replay ${f.replay}`] : []), ...(f.timeline ? [`timeline: ${f.timeline}`] : [])].join('\n');
    cases.push(`    <testcase${attr({ classname: suite, name: f.class })}>\n      <failure${attr({ type: 'unsafe', message: `UNSAFE: ${f.class}` })}>${xmlEscape(body)}</failure>\n    </testcase>`);
  }
  // The whole search: passing when SAFE, an error when inconclusive; after failures it reports any shard that did not finish.
  const name = `${m.faults.length ? `under faults ${[...m.faults].sort().join(',')}` : 'without faults'} (${m.total} shards)`;
  if (m.verdict === true) cases.push(`    <testcase${attr({ classname: suite, name })}>\n      <system-out>${xmlEscape(`SAFE: ${describeCoverage(m.coverage)}${m.coverage.cells ? `\n${describeCells(m.coverage.cells)}` : ''}`)}</system-out>\n    </testcase>`);
  else if (m.gaps.length) {
    errors++;
    cases.push(`    <testcase${attr({ classname: suite, name })}>\n      <error${attr({ type: 'inconclusive', message: `INCONCLUSIVE: ${m.gaps[0]!}` })}>${xmlEscape(m.gaps.map((g) => `- ${g}`).join('\n'))}</error>\n    </testcase>`);
  }
  const n = String(cases.length);
  return ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites${attr({ name: 'lockpick', tests: n, failures: String(failures), errors: String(errors) })}>`,
    `  <testsuite${attr({ name: suite, tests: n, failures: String(failures), errors: String(errors), skipped: '0' })}>`, ...cases, '  </testsuite>', '</testsuites>', ''].join('\n');
}

export function renderMergeIndex(m: MergeResult, outDir: string): string {
  const link = (p: string, text: string) => `<a href="${escapeHtml(relative(outDir, p))}">${escapeHtml(text)}</a>`;
  const rows = m.shards.map((s) => `<tr><td>${escapeHtml(s.shard)}</td><td>${escapeHtml(s.verdict === 'missing-results' ? 'no results' : VERDICT_WORD[String(s.verdict) as 'true'])}${s.interrupted ? ' (interrupted)' : ''}</td><td>${s.runs}</td><td>${link(s.dir, s.dir)}</td></tr>`).join('\n');
  const fails = m.failures.map((f) => `<li><b>${escapeHtml(f.class)}</b>${f.cause ? ` (${escapeHtml(f.cause)})` : ''}: shard(s) ${escapeHtml(f.shards.join(', '))}, ${f.runs} violating run(s)${f.timeline ? `: ${link(f.timeline, 'timeline')}` : ''}${f.counterexample ? `, ${link(f.counterexample, 'counterexample')}` : ''}</li>`).join('\n');
  const gaps = m.gaps.map((g) => `<li>${escapeHtml(g)}</li>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>lockpick merge: ${escapeHtml(m.lock)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:60em}td,th{padding:.2em .8em;text-align:left}.v{font-size:1.4em;font-weight:bold}${cellsCss()}</style></head>
<body><p class="v">${verdictWord(m)}</p>
<p>${escapeHtml(m.lock)} under ${escapeHtml(m.faults.join(', ') || 'no faults')}: ${m.shards.length} of ${m.total} shard(s).</p>
${m.failures.length ? `<h2>Distinct failures</h2><ol>${fails}</ol>` : ''}
${gaps ? `<h2>Not every shard finished or covered its part</h2><ul>${gaps}</ul>` : ''}
<h2>Shards</h2><table><tr><th>shard</th><th>verdict</th><th>runs</th><th>run dir</th></tr>
${rows}</table>
<p style="white-space:pre-line">Coverage summed: ${escapeHtml(describeCoverage(m.coverage))}</p>
${m.coverage.cells ? cellsSection(m.coverage.cells) : ''}
</body></html>
`;
}

/**
 * results.json, junit.xml and index.html in outDir, through src/output.ts as every command
 * writes: each file whole or not at all, a full disk exit 3, a path that cannot be written exit 2.
 */
export function writeMerged(m: MergeResult, outDir: string): void {
  const fix = 'give --out a directory that can be written (it is created if missing)';
  try { makeDir(outDir); } catch (e) { throw outputError(`--out ${outDir}: cannot create the directory`, e, fix); }
  writeOutput(join(outDir, 'results.json'), `${JSON.stringify(m, null, 2)}\n`, { fix });
  writeOutput(join(outDir, 'junit.xml'), renderMergeJUnit(m), { fix });
  writeOutput(join(outDir, 'index.html'), renderMergeIndex(m, outDir), { fix });
}
