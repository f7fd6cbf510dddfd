// Strict UTF-8 for history readers: a file with invalid bytes is rejected at the line that holds
// them. Lenient decoding would turn them into U+FFFD, and two different keys could then merge
// into one (a false double holder).
import { HistoryError } from './errors.ts';

/**
 * Offset of the first byte of `bytes` that does not belong to a valid UTF-8 sequence, or
 * bytes.length when all are valid (a sequence cut off by the end counts as invalid: the caller
 * only asks once decoding has failed). `continued`: up to 3 leading continuation bytes finish a
 * character begun in the previous chunk.
 */
export function firstInvalidUtf8(bytes: Uint8Array, continued: boolean): number {
  let i = 0;
  if (continued) while (i < 3 && i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i++;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) { i++; continue; }
    let n: number, min: number;
    if (b >= 0xc2 && b <= 0xdf) { n = 1; min = 0x80; }
    else if (b >= 0xe0 && b <= 0xef) { n = 2; min = 0x800; }
    else if (b >= 0xf0 && b <= 0xf4) { n = 3; min = 0x10000; }
    else return i;
    let cp = b & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return i;
}

export function countNewlines(bytes: Uint8Array, start: number, end: number): number {
  let n = 0;
  for (let i = bytes.indexOf(10, start); i !== -1 && i < end; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

export function notUtf8(file: string, line: number, byte: number | undefined): HistoryError {
  const what = byte === undefined ? 'the file ends inside a multi-byte character' : `byte 0x${byte.toString(16).padStart(2, '0')} is not valid UTF-8 here`;
  return new HistoryError(file, line, 'not-utf8', `a history must be UTF-8; ${what}`,
    're-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8 FILE), or remove the bad bytes; invalid bytes are never guessed, since two keys that differ only there would merge');
}
