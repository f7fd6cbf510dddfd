// The CI recipes for shards (docs/ci/*.yml, shown whole in docs/ci.md): each parses as YAML,
// its shards and its merge fit together (shard count, artifact names and paths, the variables
// `--shard auto` reads), and every option of its lockpick commands is one lockpick has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { minCoverageOf, parseShard } from '../../src/options.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const text = (f: string) => readFileSync(path.join(root, 'docs/ci', f), 'utf8');
type Doc = Record<string, any>;   // parsed YAML, read field by field

function docs(f: string): Doc[] {
  const all = parseAllDocuments(text(f));
  assert.ok(Array.isArray(all), `${f}: no YAML documents`);
  for (const d of all) {
    assert.deepEqual(d.errors.map((e) => e.message), [], `${f}: YAML errors`);
    assert.deepEqual(d.warnings.map((e) => e.message), [], `${f}: YAML warnings`);
  }
  return all.map((d) => d.toJS() as Doc);
}

/** The options `lockpick run --help` and `lockpick merge --help` list. */
async function helpOf(cmd: 'run' | 'merge'): Promise<string> {
  const out: string[] = [];
  const log = console.log;
  console.log = (s: string) => { out.push(s); };
  try { assert.equal(await (await import(`../../src/commands/${cmd}.ts`)).run(['--help']), 0); } finally { console.log = log; }
  return out.join('\n');
}

async function knownFlags(script: string): Promise<void> {
  for (const m of script.matchAll(/lockpick (run|merge)\b([^\n;]*)/g)) {
    const help = await helpOf(m[1] as 'run' | 'merge');
    for (const flag of m[2]!.match(/--[a-z-]+/g) ?? []) assert.match(help, new RegExp(`\\s${flag}\\b`), `lockpick ${m[1]} has no ${flag}`);
  }
}

test('docs/ci.md shows each recipe file as it is', () => {
  const md = readFileSync(path.join(root, 'docs/ci.md'), 'utf8');
  for (const f of ['github-actions.yml', 'gitlab-ci.yml', 'kubernetes-job.yml']) assert.ok(md.includes(`\`\`\`yaml\n${text(f)}\`\`\``), `docs/ci.md does not show docs/ci/${f} whole`);
});

test('GitHub Actions: a matrix of N shards each uploading its run dir, a final job downloading them all and merging', async () => {
  const [wf] = docs('github-actions.yml');
  const shard = wf!.jobs.shard, merge = wf!.jobs.merge;
  const n = shard.strategy.matrix.shard.length;
  assert.deepEqual(shard.strategy.matrix.shard, Array.from({ length: n }, (_, i) => i + 1));
  assert.equal(shard.strategy['fail-fast'], false);
  const run = shard.steps.find((s: Doc) => /lockpick run/.test(s.run ?? '')).run as string;
  assert.match(run, new RegExp(`--shard \\$\\{\\{ matrix\\.shard \\}\\}/${n}\\b`));
  await knownFlags(run);
  const upload = shard.steps.find((s: Doc) => s.uses?.startsWith('actions/upload-artifact')).with;
  for (const f of ['test.json', 'results.json']) assert.match(upload.path, new RegExp(`store/\\*/\\*/${f.replace('.', '\\.')}`));
  assert.equal(merge.needs, 'shard');
  assert.equal(merge.if, 'always()');
  const download = merge.steps.find((s: Doc) => s.uses?.startsWith('actions/download-artifact')).with;
  const glob = new RegExp(`^${download.pattern.replace('*', '.*')}$`);
  for (let i = 1; i <= n; i++) assert.match(upload.name.replace('${{ matrix.shard }}', String(i)), glob);
  const mergeRun = merge.steps.find((s: Doc) => /lockpick merge/.test(s.run ?? '')).run as string;
  assert.match(mergeRun, new RegExp(`lockpick merge ${download.path}\\b`));
  await knownFlags(mergeRun);
});

test('GitLab: parallel jobs read CI_NODE_INDEX/CI_NODE_TOTAL through --shard auto; the next stage merges their artifacts', async () => {
  const [ci] = docs('gitlab-ci.yml');
  const shard = ci!['lock-shard'], merge = ci!['lock-safety'];
  const n = shard.parallel as number;
  const script = (shard.script as string[]).join('\n');
  assert.match(script, /--shard auto\b/);
  await knownFlags(script);
  for (let i = 1; i <= n; i++) assert.deepEqual(parseShard('auto', undefined, { CI_NODE_INDEX: String(i), CI_NODE_TOTAL: String(n) }), { index: i, total: n, from: 'CI_NODE_INDEX/CI_NODE_TOTAL (GitLab)' });
  assert.ok((shard.artifacts.paths as string[]).includes('store/*/*/results.json') && shard.artifacts.when === 'always');
  assert.deepEqual(merge.needs, ['lock-shard']);
  assert.equal(merge.when, 'always');
  assert.ok(ci!.stages.indexOf(merge.stage) > ci!.stages.indexOf(shard.stage));
  const mergeScript = (merge.script as string[]).join('\n');
  assert.match(mergeScript, /lockpick merge store\b/);
  assert.equal(merge.artifacts.reports.junit, 'junit.xml');
  await knownFlags(mergeScript);
});

test('Kubernetes: an Indexed Job of N shards (JOB_COMPLETION_INDEX, --shard-total N) on a shared volume, then a merge Job', async () => {
  const [job, merge] = docs('kubernetes-job.yml');
  assert.equal(job!.kind, 'Job');
  assert.equal(job!.spec.completionMode, 'Indexed');
  const n = job!.spec.completions as number;
  const c = job!.spec.template.spec.containers[0];
  const script = (c.args as string[]).join('\n');
  assert.match(script, new RegExp(`--shard-total ${n}\\b`));
  await knownFlags(script);
  for (let i = 0; i < n; i++) assert.equal(parseShard(undefined, String(n), { JOB_COMPLETION_INDEX: String(i) })?.index, i + 1);
  const mount = c.volumeMounts[0].mountPath as string;
  assert.match(script, new RegExp(`--store ${mount}/`));
  assert.equal(merge!.kind, 'Job');
  const m = merge!.spec.template.spec.containers[0];
  assert.deepEqual(m.command.slice(0, 4), ['npx', 'lockpick', 'merge', mount]);
  assert.equal(merge!.spec.template.spec.volumes[0].persistentVolumeClaim.claimName, job!.spec.template.spec.volumes[0].persistentVolumeClaim.claimName);
  // The docker environment beside each shard: a Docker engine the run reaches through DOCKER_HOST.
  assert.match(script, /--env docker\b/);
  assert.ok(c.env.some((e: Doc) => e.name === 'DOCKER_HOST'));
  assert.ok(job!.spec.template.spec.initContainers.some((s: Doc) => /dind/.test(s.image) && s.restartPolicy === 'Always'));
});

test('every shard recipe asks for fault-space coverage (--min-coverage, a percentage merge judges on the shards summed)', async () => {
  for (const f of ['github-actions.yml', 'gitlab-ci.yml', 'kubernetes-job.yml']) {
    const runs = [...text(f).matchAll(/lockpick run\b[^\n]*/g)].map((m) => m[0]);
    assert.ok(runs.length > 0, f);
    for (const r of runs) {
      const m = /--min-coverage (\S+)/.exec(r);
      assert.ok(m, `${f}: ${r} has no --min-coverage`);
      const p = minCoverageOf(m[1]!, '--min-coverage');
      assert.ok(p !== undefined && p > 0 && p <= 100, `${f}: --min-coverage ${m[1]}`);
      await knownFlags(r);
    }
  }
  assert.throws(() => minCoverageOf('101', '--min-coverage'), /--min-coverage must be a percentage from 0 to 100/);
  assert.throws(() => minCoverageOf('ninety', '--min-coverage'), /--min-coverage must be a percentage from 0 to 100.*'ninety'/);
  assert.equal(minCoverageOf('87.5', '--min-coverage'), 87.5);
});
