import { readFileSync } from 'node:fs';
import { checkHistory } from '../src/api.ts';
import { HistoryBuilder } from '../src/history/build.ts';
import { classifyRun, lockDesign } from '../src/runner/failure-cause.ts';
import { RECIPES } from '../src/locks/registry.ts';
const [file, lockName] = process.argv.slice(2);
const lines = readFileSync(file!, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const runs = new Map<number, any[]>();
let cur = 0;
for (const e of lines) {
  if (e.f === 'run-start') cur++;
  const m = typeof e.key === 'string' ? /^r(\d+)-/.exec(e.key) : null;
  const r = m ? Number(m[1]) : cur;
  (runs.get(r) ?? runs.set(r, []).get(r)!).push(e);
}
const recipe = (RECIPES as any[]).find((r) => r.name === lockName);
const d = lockDesign(recipe, 800);
for (const [r, ev] of runs) {
  const res: any = await (checkHistory as any)(ev, { model: 'mutex' }).catch((e: any) => ({ err: String(e) }));
  const anomalies = res.anomalies ?? [];
  const faults = ev.filter((e) => e.process === 'nemesis' && /-start$/.test(e.f) && e.f !== 'run-start').map((e) => `${e.f}:${JSON.stringify(e.value?.point ?? e.value?.params?.point ?? '')}`);
  if (!anomalies.length) { console.log(r, 'ok', faults.join(' ')); continue; }
  const c = classifyRun({ events: ev, check: { anomalies }, resource: { anomalies: [] } }, d);
  console.log(r, anomalies.map((a: any) => a.type).join(','), '=>', c.map((k) => k.key).join(' || '), '|', faults.join(' '));
}
