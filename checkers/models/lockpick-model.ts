// The Model contract plus two optional extras lockpick's own models provide; user models may too.
import type { Op } from '../../src/history/types.ts';
import type { Model } from '../types.ts';

export interface DescribedModel<S> extends Model<S> {
  /** The `f` values this model understands; other ops are rejected up front with a clear error. */
  readonly operations?: readonly string[];
  /**
   * Why this op cannot be read by the model (malformed value), or undefined when it is fine:
   * plain words, or the rule broken, what was expected and how to fix it.
   */
  validate?(op: Op): string | { rule: string; expected: string; fix: string } | undefined;
  /**
   * Optional: ops with equal keys have the same effect in every state (e.g. f and value for a
   * register; a lock op's effect depends on its process too). The search then tries only one
   * of several interchangeable unanswered ops. Omit it when unsure: it is only a speed-up.
   */
  opKey?(op: Op): string;
  /** Plain words for what an op does, for messages: "acquire", "read 3", "cas 1→2". */
  describeOp?(op: Op): string;
}
