// server-term: a graceful stop (SIGTERM; SIGKILL if the server has not exited within
// grace_ms) and a restart when healed, as a rolling restart or a deploy does. The server
// comes back as it was started: a Redis without persistence comes back empty, one with
// AOF keeps its keys (and a server with RDB snapshots would save one on the way down).
import fc from 'fast-check';
import type { KindDef } from '../fault.ts';
import { at, single, someServer, startAt } from '../words.ts';
import { MAX_FAULT_MS, param } from '../spec.ts';
import { NODE_TARGETS } from '../targets.ts';
import { forDur } from '../band.ts';
import { DEFAULT_GRACE_MS } from '../../src/env/capabilities.ts';
import { RESTART_DELAY_PARAM, restartDelayParams, stopThenRestart, stoppedText } from './process.ts';

export const serverTerm: KindDef = {
  schema: {
    kind: 'server-term',
    summary: 'stop server processes gracefully (SIGTERM, SIGKILL after grace_ms); restart them as they were started when healed',
    target: NODE_TARGETS,
    targetRequired: true,
    params: {
      grace_ms: { type: 'number', min: 0, max: MAX_FAULT_MS, doc: `how long the server may take to stop before SIGKILL (default ${DEFAULT_GRACE_MS} ms)` },
      ...RESTART_DELAY_PARAM,
    },
  },
  aliases: ['term', 'graceful-restart'],
  needs: ['term'],
  scope: 'server',
  breaks: 'restart',
  takes: { restartDelayMs: 'keeps a stopped server down that long' },
  create: (spec, ctx) => stopThenRestart(spec, ctx, { signal: 'SIGTERM', graceMs: param(spec, 'grace_ms', DEFAULT_GRACE_MS) }),
  // Down for a short time, as a deploy's restart is; kept down --restart-delay when given.
  generate: (o) => single(fc.record({
    kind: fc.constant('server-term'), at_ms: startAt(o), duration_ms: fc.integer({ min: 0, max: 300 }), target: someServer(o),
    ...(o.restartDelayMs !== undefined ? { params: fc.constant(restartDelayParams(o)) } : {}),
  })),
  band: (b) => `stop server ${b.who} (SIGTERM)${forDur(b) === '' ? '' : `, down${forDur(b)}`}`,
  describe: (f) => `${at(f)}: stop (SIGTERM) ${stoppedText(f).nodes}, restart ${stoppedText(f).them} ${f.duration_ms !== undefined ? `after ${f.duration_ms} ms` : 'at the end'}${stoppedText(f).delay}` +
    `${f.params?.grace_ms !== undefined ? `, SIGKILL after ${String(f.params.grace_ms)} ms` : ''}`,
};
