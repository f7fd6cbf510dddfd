// A history that breaks a rule of docs/history-format.md: says where, which rule, what was
// expected and how to fix it. `check` turns this into exit code 2.
export class HistoryError extends Error {
  readonly file: string;
  readonly line: number;       // 1-based; 0 when the problem is the file as a whole
  readonly rule: string;       // short stable id, e.g. 'completion-without-invoke'
  readonly expected: string;
  readonly fix: string;

  constructor(file: string, line: number, rule: string, expected: string, fix: string) {
    const where = line > 0 ? `${file}:${line}` : file;
    super(`${where}: ${rule}: ${expected}\n  fix: ${fix}`);
    this.name = 'HistoryError';
    this.file = file;
    this.line = line;
    this.rule = rule;
    this.expected = expected;
    this.fix = fix;
  }
}

/** A failure of the reader thread itself (not of the file): a lockpick bug, exit 4. */
export class ReaderBug extends Error {
  constructor(message: string, readonly threadStack?: string) {
    super(`internal error in the history reader thread: ${message}`);
    this.name = 'ReaderBug';
  }
}
