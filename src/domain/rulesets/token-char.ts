/**
 * The characters allowed in an HTTP token (RFC 9110 §5.6.2 `tchar`). A cookie name (RFC 6265 §4.1.1,
 * `token` of RFC 2616) allows exactly the same set, so header and cookie names share this table.
 */
const tokenChars: readonly boolean[] = (() => {
  const table = new Array<boolean>(128).fill(false);
  const mark = (from: number, to: number): void => {
    for (let c = from; c <= to; c++) table[c] = true;
  };
  mark(0x30, 0x39);
  mark(0x41, 0x5a);
  mark(0x61, 0x7a);
  for (const c of "!#$%&'*+-.^_`|~") table[c.charCodeAt(0)] = true;
  return table;
})();

/** The punctuation a token may contain, as written in user-facing messages. */
export const tokenPunctuation = "! # $ % & ' * + - . ^ _ ` | ~";

/** Whether the UTF-16 code unit `code` is a token character. */
export function isTokenChar(code: number): boolean {
  return code < 128 && tokenChars[code] === true;
}

/** The index of the first character of `name` that is not a token character, or -1 when all are. */
export function findNonTokenChar(name: string): number {
  for (let i = 0; i < name.length; i++) {
    if (!isTokenChar(name.charCodeAt(i))) return i;
  }
  return -1;
}
