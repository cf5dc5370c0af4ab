/**
 * Splitting what was read from a file into complete lines, each with the byte offset it starts at. Pure: the
 * tail (file-tail.ts) decides what to do with a partial last line (wait for its newline) and with a line
 * over the size limit (count it, skip it).
 */
import { isAscii, isUtf8 } from 'node:buffer';

/** One complete line: its text (without `\n` or a `\r` before it) and where it starts in the file. */
export interface ReadLine {
  readonly text: string;
  readonly offset: number;
  /** The line's bytes are not UTF-8: it cannot be an event. */
  readonly notUtf8: boolean;
  /** The line is longer than the limit; `text` is empty. */
  readonly oversize: boolean;
}

/**
 * Splits `bytes` (read at file offset `start`) at newlines, handing each complete line to `visit` as it
 * is found, so that only one line's text is held at a time; answers the bytes the lines took, newlines
 * included (the rest is a partial line). With `final`, a last line without a newline counts as complete
 * (the file was rotated away and will not grow). A line longer than `maxLineBytes` is handed over marked
 * `oversize`.
 */
export function forEachLine(bytes: Buffer, start: number, maxLineBytes: number, final: boolean, visit: (line: ReadLine) => void): number {
  const ascii = isAscii(bytes);
  let at = 0;
  while (at < bytes.length) {
    let end = bytes.indexOf(0x0a, at);
    if (end < 0) {
      if (!final) break;
      end = bytes.length;
    }
    let textEnd = end;
    if (textEnd > at && bytes[textEnd - 1] === 0x0d) textEnd -= 1;
    const length = textEnd - at;
    if (length > maxLineBytes) {
      visit({ text: '', offset: start + at, notUtf8: false, oversize: true });
    } else if (ascii) {
      visit({ text: bytes.toString('latin1', at, textEnd), offset: start + at, notUtf8: false, oversize: false });
    } else {
      const slice = bytes.subarray(at, textEnd);
      const valid = isUtf8(slice);
      visit({ text: valid ? slice.toString('utf8') : '', offset: start + at, notUtf8: !valid, oversize: false });
    }
    at = end + 1;
  }
  return Math.min(at, bytes.length);
}
