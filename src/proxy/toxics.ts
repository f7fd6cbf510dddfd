// Toxic definitions with Toxiproxy's JSON shape
// ({name, type, stream, toxicity, attributes}) and its defaults:
// stream "downstream", toxicity 1.0, name "<type>_<stream>".
export type Stream = 'upstream' | 'downstream';
export type ToxicType = 'latency' | 'timeout' | 'reset_peer' | 'bandwidth' | 'limit_data';

export interface ToxicJson {
  name: string;
  type: ToxicType;
  stream: Stream;
  toxicity: number;
  attributes: Record<string, number>;
}

/** A toxic as held by a proxy. `generation` changes on every update so connections re-roll toxicity. */
export interface Toxic extends ToxicJson { generation: number }

/** Each supported type with its attributes and their defaults (what Toxiproxy reports back). */
export const TOXIC_ATTRIBUTES: Record<ToxicType, Record<string, number>> = {
  latency: { latency: 0, jitter: 0 },      // ms added to each chunk, ± jitter
  timeout: { timeout: 0 },                 // hold all data; close after timeout ms (0 = never)
  reset_peer: { timeout: 0 },              // TCP RST after timeout ms
  bandwidth: { rate: 0 },                  // KB/s (0 = unlimited)
  limit_data: { bytes: 0 },                // close once this many bytes went through
};

/** Node's longest timer: a longer delay would overflow to 1 ms and fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** The bound of each attribute: times in ms are timers; sizes and rates stay exact integers. */
const ATTRIBUTE_MAX: Record<string, number> = { latency: MAX_TIMER_MS, jitter: MAX_TIMER_MS, timeout: MAX_TIMER_MS };

/** A request the API rejects; `status` becomes the HTTP status. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

let generations = 0;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkAttributes(type: ToxicType, attrs: unknown, base: Record<string, number>): Record<string, number> {
  if (attrs === undefined || attrs === null) return { ...base };
  if (!isRecord(attrs)) throw new ApiError(400, `toxic attributes must be an object like ${JSON.stringify(TOXIC_ATTRIBUTES[type])}`);
  const out = { ...base };
  for (const [k, v] of Object.entries(attrs)) {
    if (!Object.hasOwn(TOXIC_ATTRIBUTES[type], k)) { // own names only: `toString`, `__proto__` are no attributes
      throw new ApiError(400, `toxic type '${type}' has no attribute '${k}'; allowed: ${Object.keys(TOXIC_ATTRIBUTES[type]).join(', ')}`);
    }
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw new ApiError(400, `toxic attribute '${k}' must be a number >= 0, got ${JSON.stringify(v)}`);
    }
    const max = ATTRIBUTE_MAX[k] ?? Number.MAX_SAFE_INTEGER;
    if (v > max) throw new ApiError(400, `toxic attribute '${k}' must be at most ${max}${max === MAX_TIMER_MS ? ' ms (the longest timer the proxy can set, 24.8 days)' : ''}, got ${v}`);
    out[k] = v;
  }
  return out;
}

function checkToxicity(v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw new ApiError(400, `toxicity must be a number in [0, 1], got ${JSON.stringify(v)}`);
  return v;
}

/** Validates a create-toxic body and fills in Toxiproxy's defaults. */
export function parseToxic(body: unknown): Toxic {
  if (!isRecord(body)) throw new ApiError(400, 'toxic body must be a JSON object with at least "type"');
  const type = body.type;
  if (typeof type !== 'string' || !Object.hasOwn(TOXIC_ATTRIBUTES, type)) {
    throw new ApiError(400, `unknown toxic type ${JSON.stringify(type)}; supported: ${Object.keys(TOXIC_ATTRIBUTES).join(', ')}`);
  }
  const t = type as ToxicType;
  const stream = body.stream ?? 'downstream';
  if (stream !== 'upstream' && stream !== 'downstream') {
    throw new ApiError(400, `toxic stream must be "upstream" or "downstream", got ${JSON.stringify(stream)}`);
  }
  const name = body.name ?? `${t}_${stream}`;
  if (typeof name !== 'string' || name === '') throw new ApiError(400, 'toxic name must be a non-empty string');
  return {
    name, type: t, stream, toxicity: checkToxicity(body.toxicity, 1),
    attributes: checkAttributes(t, body.attributes, TOXIC_ATTRIBUTES[t]),
    generation: ++generations,
  };
}

/** Applies an update body (attributes and/or toxicity) to an existing toxic. */
export function updateToxic(old: Toxic, body: unknown): Toxic {
  if (!isRecord(body)) throw new ApiError(400, 'toxic update body must be a JSON object');
  return {
    ...old,
    toxicity: checkToxicity(body.toxicity, old.toxicity),
    attributes: checkAttributes(old.type, body.attributes, old.attributes),
    generation: ++generations,
  };
}

export function toxicJson(t: Toxic): ToxicJson {
  return { attributes: { ...t.attributes }, name: t.name, stream: t.stream, toxicity: t.toxicity, type: t.type };
}
