// Simulated events → what `check` reads: a ParsedHistory (through the real HistoryBuilder, so
// every simulated history also obeys the rules of docs/history-format.md) or JSON Lines text.
import { HistoryBuilder } from '../../src/history/build.ts';
import type { HistoryEvent, ParsedHistory } from '../../src/history/types.ts';

export function toParsed(events: readonly HistoryEvent[], source = 'simulated.jsonl'): ParsedHistory {
  const b = new HistoryBuilder(source);
  events.forEach((e, i) => b.add(e, i + 1));
  return b.finish();
}

export function toJsonl(events: readonly HistoryEvent[]): string {
  let out = '';
  for (const e of events) out += `${JSON.stringify(e)}\n`;
  return out;
}
