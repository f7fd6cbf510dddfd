// `lockpick report DIR --format issue`: a Markdown bug report a lock's maintainers can act on,
// from a stored run that broke the lock: what the lock is (and its versions), the servers and
// theirs, the smallest schedule that broke it in words, the anomaly with its lines and times,
// whether it is a bug of the lock or inherent to its design and why, the fix the cause points
// to, and how to see it again. It speaks of the lock and the run, in the user's terms.
import type { Anomaly, CheckResult } from '../../checkers/types.ts';
import { basename } from 'node:path';
import { inClientTerms } from './text.ts';
import { failureOfDir } from '../runner/stored-files.ts';

/** What the report says about the lock under test (gathered by the command, which reads the files). */
export interface LockFacts {
  /** How the user named it on the command line (`--lock …`). */
  label: string;
  /** Lines of what it is: a built-in recipe and its summary, a module and its package, a process client's command. */
  lines: string[];
}

export interface IssueInputs {
  /** The run directory (store/<lock>/<run-id>) and the counterexample's. */
  dir: string;
  counterexampleDir: string;
  /** What `lockpick run --replay` takes to run this counterexample's plan again: its own dir when it has a test.json, else the run dir. */
  replayDir: string;
  test: Record<string, unknown>;
  /** results.json of the run, as written (failures, coverage, …). */
  results: Record<string, unknown>;
  lock: LockFacts;
  /** The counterexample's history checked again, its anomalies' causes in words, its clients by process. */
  check: CheckResult;
  /** What the run's resource check found in this counterexample (results.json): a stale write, lost updates. */
  resource?: Anomaly[];
  causes: (string | undefined)[];
  clients: ReadonlyMap<number, string>;
  /** The minimal schedule in words (describePlan). */
  schedule: string;
  /** reproduction.json of `lockpick run --replay DIR --measure`, when the counterexample was measured. */
  reproduction?: { runs: number; reproduced: number; inconclusive: number; clean: number; measured?: string };
}

interface Failure { class?: string; nature?: string; cause?: string; kinds?: string[]; anomalies?: string[]; confirmed?: boolean; counterexample?: string }

/** The remedy each cause (failure-cause.ts's stable words, as in a failure's class) points to. */
const FIXES: Record<string, string> = {
  'lease-outlived': 'A holder can always outlive its lease (a pause, a slow network): fence the protected resource. Hand out a fencing token that grows with every grant and have the resource refuse a write with a token older than one it has seen. Reporting the validity left to the client (so it stops in time) narrows the window but cannot close it.',
  'validity-outlived': 'The client kept working past the validity it was told: stop at the validity the lock reports, and fence the resource for the pause after the last check.',
  'session-outlived': 'A session can end while its client still works (a pause, a cut link): fence the protected resource with a token that grows with every grant (e.g. the lock node\'s sequence number or creation revision), and watch the session state so the client stops as soon as it is told.',
  'delayed-write': 'A write held up after the holder\'s last check reaches the resource late: only a fencing token checked by the resource makes it harmless.',
  'stale-release': 'Release only your own lock, in one atomic step: compare the owner and delete together (a Lua script, a conditional delete, a delete guarded by the revision or version the grant created), and report "lost" when the lock is no longer yours.',
  'stale-renew': 'Renew only your own lock, in one atomic step: compare the owner and extend together (a Lua script that checks the value before PEXPIRE, a conditional update guarded by the grant\'s revision or version, a keep-alive of your own lease), and report "lost" when the lock is no longer yours.',
  'within-lease': 'The lock let a second client in while the first held it within its lease and no fault explains it: a bug in how the lock grants or keeps holds. The schedule and history below show where.',
  'no-fault': 'Two clients held the lock at once with no fault at all: a bug in how the lock grants holds. The schedule and history below show where.',
  'expired-grant': 'Do not hand out a hold whose validity is already over: measure the validity from before the first request went out (a monotonic clock read before sending), less the clock drift allowed, and treat a result of zero or less as a failure to acquire (a renew: as the hold lost).',
  'overstated-validity': 'Count the validity from before the first request went out (read a monotonic clock before sending, not after the replies), less the clock drift allowed.',
  'phantom-grant': 'Report an acquire as held only on the server\'s word: an error, a timeout or a lost connection is "not acquired" (or an unknown outcome), never "held".',
  'server-clock': 'A server\'s clock jump shortened the lease: time leases with a monotonic clock where the server allows it, allow for the drift in the validity reported, or fence the resource.',
  'restart-forgets': 'A restarted server forgot the lock: persist it before acknowledging (fsync on every write), or keep a restarted server out for longer than the longest lease (a delayed restart).',
  'async-failover': 'A failover promoted a replica the lock had not reached: with asynchronous replication an acknowledged lock can be lost. Wait for the replicas to acknowledge, or use a store that replicates by consensus.',
  'client-crash': 'An error from the lock\'s client library went uncaught and ended the process (a cut link): handle connection errors (an \'error\' listener) so a fault fails the operation, not the program.',
  fencing: 'The fencing check let a stale write through: the resource must compare the token with the highest it has seen and refuse an older one, atomically with the write.',
};

/** The causes' stable words in a failure's class ("inherent: exposure · lease-outlived · client-pause@holding + …"). */
export function causesOf(cls: string | undefined): string[] {
  return [...(cls ?? '').matchAll(/·\s*([a-z-]+)\s*·/g)].map((m) => m[1]!);
}

const ms = (ns: number) => `${(ns / 1e9).toFixed(3)} s`;
const code = (s: string) => `\`${s.replace(/`/g, "'")}\``;
const fence = (s: string) => `\`\`\`\n${s.replace(/```/g, "'''")}\n\`\`\``;

function anomalyLines(a: Anomaly, cause: string | undefined, clients: ReadonlyMap<number, string>): string[] {
  const who = a.processes.map((p) => clients.get(p) ?? `process ${p}`).join(', ');
  return [
    `- **${a.type}**${a.key ? ` on lock ${code(a.key)}` : ''}${who ? ` (${who})` : ''}: ${inClientTerms(a.message, clients)}`,
    // Causes name clients already ("c1 (process 9)"): the process ids are the test's, not the lock's.
    ...(cause ? [`  - what made it possible: ${cause.replace(/ \(process \d+\)/g, '')}`] : []),
    ...(a.lines.length ? [`  - history lines: ${a.lines.join(', ')}`] : []),
    ...(a.times?.length ? [`  - times (since the run began): ${a.times.map(ms).join(', ')}`] : []),
  ];
}

export function renderIssue(i: IssueInputs): string {
  const failures = (Array.isArray(i.results.failures) ? i.results.failures : []) as Failure[];
  const shown = failureOfDir<Failure>(failures, basename(i.counterexampleDir)) ?? failures[0];
  const anomalies = i.check.anomalies;
  const resource = i.resource ?? [];
  const kinds = shown?.kinds ?? [];
  const title = `${i.lock.label}: ${[...new Set([...anomalies, ...resource].map((a) => a.type))].join(', ') || 'a violation'}${kinds.length ? ` under ${kinds.join(', ')}` : ' with no fault'}`;
  const versions = (i.test.versions ?? {}) as Record<string, string>;
  const topology = (i.test.topology ?? {}) as Record<string, unknown>;
  const env = (i.test.env ?? {}) as Record<string, unknown>;
  const servers = Object.entries(versions).filter(([k]) => k.startsWith('package:')).map(([k, v]) => `${k.slice('package:'.length)} ${v}`);
  const options = (i.test.lock_options ?? {}) as Record<string, unknown>;
  const nature = shown?.nature ?? 'unknown';
  const fixes = [...new Set(causesOf(shown?.class))].map((c) => FIXES[c]).filter((x): x is string => x !== undefined);
  const replay = `lockpick run --replay ${i.replayDir}`;
  const out: string[] = [
    `# ${title}`,
    '',
    `${nature === 'bug' ? 'A bug in this lock' : nature === 'inherent' ? 'A failure inherent to how this lock is built' : anomalies.length === 0 && resource.length ? 'A violation of the resource the lock protects' : 'A violation of mutual exclusion'}, found by a Jepsen-style test on real servers and shrunk to the schedule below.`,
    '',
    '## The lock',
    '',
    ...i.lock.lines.map((l) => `- ${l}`),
    ...(Object.keys(options).length ? [`- options: ${Object.entries(options).map(([k, v]) => code(`${k}=${String(v)}`)).join(', ')}`] : []),
    `- model: ${String(i.test.model ?? 'mutex')}${i.test.fencing ? ' (hands out fencing tokens)' : ''}; TTL asked ${String((i.test.plan as { ttlMs?: number } | null | undefined)?.ttlMs ?? i.test.ttl_ms ?? '?')} ms; ${String(i.test.clients ?? '?')} client(s)`,
    '',
    '## The servers',
    '',
    `- ${String(topology.name ?? 'unknown')}${Object.entries(topology).filter(([k]) => k !== 'name' && k !== 'resource').map(([k, v]) => `, ${k} ${String(v)}`).join('')}, started ${env.kind === undefined || env.kind === 'local' ? 'on this machine from its OS packages' : `by ${String(env.kind)}`}`,
    ...(servers.length ? [`- versions: ${servers.join('; ')}`] : []),
    `- tested with lockpick ${versions.lockpick ?? 'unknown'} on Node ${versions.node ?? 'unknown'}; every link went through a fault proxy`,
    '',
    '## What happened',
    '',
    'The smallest schedule that broke the lock:',
    '',
    fence(i.schedule),
    '',
    ...anomalies.flatMap((a, k) => anomalyLines(a, i.causes[k], i.clients)),
    // The lock's history may be valid while the resource it protects was not (a write held up past its hold).
    ...(resource.length ? [...(anomalies.length ? ['', 'In the resource the lock protects:'] : ['The lock\'s own history is valid; the resource it protects was not:']), ''] : []),
    ...resource.flatMap((a) => anomalyLines(a, undefined, i.clients)),
    '',
    '## Bug or design?',
    '',
    shown?.cause ? inClientTerms(shown.cause, i.clients) : 'Not classified.',
    '',
    nature === 'bug'
      ? 'The lock\'s own contract says this cannot happen: it is a bug of this implementation.'
      : nature === 'inherent'
        ? 'This follows from the design (no implementation of it can avoid it under this fault); it matters to anyone who relies on the lock for correctness.'
        : 'The cause could not be classified from the history alone.',
    '',
    ...(fixes.length ? ['## What would fix it', '', ...fixes.map((f) => `- ${f}`), ''] : []),
    '## How to see it again',
    '',
    fence(replay),
    '',
    ...(i.reproduction ? [`Replayed ${i.reproduction.runs} times${i.reproduction.measured ? ` (${i.reproduction.measured.slice(0, 10)})` : ''}: it broke the lock ${i.reproduction.reproduced} of ${i.reproduction.runs} times` +
      `${i.reproduction.inconclusive ? `; ${i.reproduction.inconclusive} run(s) inconclusive` : ''}${i.reproduction.clean ? `; ${i.reproduction.clean} without a violation` : ''} (measured with ${code(`${replay} --runs ${i.reproduction.runs} --measure`)}).`, ''] : []),
    shown?.confirmed === false
      ? 'Timing-sensitive: the shrunk schedule broke the lock once and was not seen again on a confirmation run; replay it several times (`--runs 5`).'
      : 'The shrunk schedule broke the lock each time it was run while it was being shrunk and confirmed.',
    '',
    '## Files to attach',
    '',
    `- ${code(`${i.counterexampleDir}/timeline.html`)}: the timeline (every client, fault and anomaly)`,
    `- ${code(`${i.counterexampleDir}/history.jsonl`)}: the history (one operation per line)`,
    `- ${code(`${i.replayDir}/test.json`)}: what was run`,
    '',
  ];
  return out.join('\n');
}
