// Reading a history file (JSON Lines or Jepsen EDN) into a ParsedHistory.

export { DEFAULT_MAX_LINE_BYTES, ReadLimitReached, parseMaxLineBytes, type ReadOptions } from './limits.ts';

export { HistoryError, ReaderBug } from './errors.ts';
export { HistoryBuilder } from './build.ts';
export type { HistoryEvent, HoldMode, NemesisEvent, Op, ParsedHistory, Process, EventType } from './types.ts';

export { readJsonl } from './jsonl.ts';
export { readEdn } from './edn.ts';
export { detectFormat, readHistory, type HistoryFormat } from './read-history.ts';
