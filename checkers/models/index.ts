// The model registry: lockpick's models by name, and registerModel for users' own.
import type { Model } from '../types.ts';
import { fencedMutex, knossosMutex, mutex, reentrantMutex } from './mutex.ts';
import { casRegister, register } from './register.ts';
import { rwlock, semaphore } from './permits.ts';

/** Null prototype: a name such as "toString" or "__proto__" is no model (look up with modelNamed). */
export const MODELS: Record<string, Model<any>> = Object.assign(Object.create(null) as Record<string, Model<any>>, {
  mutex,
  'knossos-mutex': knossosMutex,
  'reentrant-mutex': reentrantMutex,
  'fenced-mutex': fencedMutex,
  semaphore,
  rwlock,
  register,
  'cas-register': casRegister,
});

/** lockpick's own models (a thread that checks keys knows these by name, not a user's). */
export const BUILTIN_MODELS: ReadonlySet<Model<any>> = new Set(Object.values(MODELS));

/** The model registered under `name` (own entries only), or undefined. */
export function modelNamed(name: string): Model<any> | undefined {
  return Object.hasOwn(MODELS, name) ? MODELS[name] : undefined;
}

/** Adds (or replaces) a model under model.name; `check --model NAME` then finds it. */
export function registerModel(model: Model<any>): void {
  for (const fn of ['init', 'step', 'partition', 'hash', 'describe'] as const) {
    if (typeof model[fn] !== 'function') throw new TypeError(`registerModel: model '${model.name}' has no ${fn}() function; a model needs init, step, partition, hash and describe`);
  }
  MODELS[model.name] = model;
}
