// The shape of a mutant fixture (bench/mutants/fixtures.ts) and of a lock family.

/** The faults a user would pick for a kind of lock; every mutant of the family runs with exactly these. */
export interface Family {
  /** --faults */
  faults: string[];
  /** Other `lockpick run` options the user would give (e.g. --pause-at), the same for every mutant of the family. */
  args: string[];
  /** Why these faults, in a sentence (printed with the table). */
  why: string;
}

/** One small, realistic bug put into a built-in recipe. */
export interface Mutant {
  name: string;
  family: string;
  /** The file the change is made in, relative to src/locks/. */
  file: string;
  /** The recipe module `lockpick run --lock` loads, when `file` is a helper it imports (default: `file`). */
  module?: string;
  /** The export of the recipe module that is the LockRecipe (default `recipe`). */
  exportName?: string;
  /** Text that occurs exactly once in `file` (test/unit/bench-mutants.test.ts checks it) ... */
  search: string;
  /** ... and what it becomes. */
  replace: string;
  /** Why a real team writes this bug, one sentence. */
  why: string;
  /**
   * Why it may survive any safety search with these faults, when it does not
   * break safety there (a liveness bug, or a change other checks of the recipe
   * make harmless); printed beside a survivor. It still counts in the score.
   */
  survives?: string;
  /**
   * Set when `survives` argues the mutant is equivalent under the family's property: no history
   * it can produce is judged differently from one the unmutated recipe can produce (the score is
   * then also given without it, as mutation testing does with equivalent mutants). A kill of a
   * mutant marked so is printed as a contradiction: the argument was wrong.
   */
  equivalent?: true;
}
