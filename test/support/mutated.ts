// Test helper: mutations of a text (insert, delete or replace short runs of characters) for fuzzing readers.
import fc from 'fast-check';

/** base's texts with up to `edits` edits, each inserting a string of up to 4 characters or one of `pieces`. */
export function mutated(base: fc.Arbitrary<string>, pieces: string[], edits = 4): fc.Arbitrary<string> {
  return fc.tuple(base, fc.array(fc.tuple(fc.nat(), fc.nat({ max: 4 }), fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom(...pieces))), { maxLength: edits }))
    .map(([text, changes]) => {
      let t = text;
      for (const [at, del, ins] of changes) {
        const i = at % (t.length + 1);
        t = t.slice(0, i) + ins + t.slice(i + del);
      }
      return t;
    });
}
