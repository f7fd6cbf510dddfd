// One entry of the `lockpick demo` catalogue: a failure mode (or the fix that
// holds against it) as a fixed plan in scenarios/<name>/ plus the words a
// learner needs around the timeline. Entries are plain data (src/demo/entries-*.ts),
// listed once in src/demo/registry.ts.
import type { Lang } from '../i18n/lang.ts';

/** Lines of a recipe's source: from the first line containing `from` to the next containing `to`. */
export interface CodeExcerpt {
  file: string;        // under src/locks/
  from: string;
  to: string;
}

/** The fields of DemoEntry that are prose, said in each language; names, code and plans stay as they are. */
export const PROSE_FIELDS = ['title', 'lock', 'fault', 'story', 'fix', 'source'] as const;
/** An entry's words in another language: every prose field. */
export type DemoText = { [K in typeof PROSE_FIELDS[number]]: string };

export interface DemoEntry {
  /** Also the scenario directory: scenarios/<name>/test.json. */
  name: string;
  title: string;
  /** UNSAFE where the lock breaks, SAFE where the fix holds. */
  expected: 'UNSAFE' | 'SAFE';
  /** What the lock does, in one or two sentences. */
  lock: string;
  /** The few lines of the recipe that matter. */
  code: CodeExcerpt[];
  /** The fault, in words (the plan itself is printed from test.json). */
  fault: string;
  /** What goes wrong (or, for a fix, why it holds), in plain words. */
  story: string;
  /** The fix, in words. */
  fix: string;
  /** The demo that shows the fix holding (or, on a fix's page, the failure it fixes). */
  fixDemo?: string;
  /** Where the failure mode is described: seed file, paper, post. */
  source: string;
  /** The same words in Simplified Chinese (the pages of `--lang zh-CN`); test/unit/i18n.test.ts checks every entry has them. */
  zh?: DemoText;
}

/** An entry's prose in `lang`: its Chinese where it has it, else its English. */
export function entryText(entry: DemoEntry, lang: Lang): DemoText {
  return lang === 'zh-CN' && entry.zh ? entry.zh : entry;
}
