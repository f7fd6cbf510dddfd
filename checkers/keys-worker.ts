// A thread that checks keys (./threads.ts): it takes the next key from the shared counter, as the
// thread that started it does, until none is left, and posts each verdict.
import { parentPort, workerData } from 'node:worker_threads';
import { Budget } from './budget.ts';
import { keyVerdict } from './index.ts';
import { BUILTIN_MODELS } from './models/index.ts';
import { loadBackends } from './backends.ts';
import type { KeysInput, FromKeys } from './threads.ts';

const input = workerData as KeysInput;
if (input.backend !== undefined) await loadBackends();
const next = new Int32Array(input.next);
const post = (m: FromKeys) => parentPort!.postMessage(m);
try {
  const model = [...BUILTIN_MODELS].find((m) => m.name === input.model);
  if (!model) throw new Error(`model '${input.model}' is not one of lockpick's own`);
  const budget = new Budget(...input.limits);
  const end = input.base + input.parts.length;
  for (let i = Atomics.add(next, 0, 1); i < end; i = Atomics.add(next, 0, 1)) {
    const [key, ops] = input.parts[i - input.base]!;
    post({ kind: 'verdict', i, verdict: keyVerdict(model, key, ops, budget, input.backend, input.silences) });
  }
  post({ kind: 'done' });
} catch (e) {
  post({ kind: 'error', message: (e as Error)?.message ?? String(e), stack: (e as Error)?.stack });
}
