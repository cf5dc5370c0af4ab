/**
 * The CRC-32 (the gzip one, as `zlib.crc32` computes it) of two byte strings one after the other, from
 * their two CRCs and the second one's length, without the bytes. A batch is stitched from pieces that
 * ingest compressed separately (deflated-text.ts); its gzip trailer needs the CRC of all of them.
 *
 * The arithmetic is the one of zlib's crc32_combine: a CRC is a polynomial over GF(2) reduced modulo the
 * (reflected) CRC-32 polynomial, and appending `n` bytes multiplies the first CRC by x^(8n) modulo it.
 */

/** The CRC-32 polynomial, reflected (bit 31 is the coefficient of x^0). */
const polynomial = 0xedb88320;
/** x^0 in the reflected representation. */
const one = 0x80000000;

/** a × b modulo the polynomial, both reflected. */
function multiplyModP(a: number, b: number): number {
  let product = 0;
  let factor = b;
  for (let bit = one; bit !== 0; bit >>>= 1) {
    if ((a & bit) !== 0) product ^= factor;
    factor = (factor & 1) !== 0 ? (factor >>> 1) ^ polynomial : factor >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) modulo the polynomial for k = 0..31 (the powers repeat with period 32 beyond what lengths need). */
const powersOfTwo: readonly number[] = (() => {
  const table: number[] = [];
  let power = one >>> 1; // x^1
  for (let k = 0; k < 32; k++) {
    table.push(power);
    power = multiplyModP(power, power);
  }
  return table;
})();

/** x^(8 × bytes) modulo the polynomial. */
function shiftForBytes(bytes: number): number {
  let result = one;
  // 8 × bytes = bytes × 2^3: walk the bits of `bytes`, starting at power 2^3.
  let k = 3;
  for (let n = bytes; n > 0; n = Math.floor(n / 2), k++) {
    if (n % 2 === 1) result = multiplyModP(powersOfTwo[k % 32] as number, result);
  }
  return result;
}

/** The CRC-32 of A followed by B, given crc(A), crc(B) and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB === 0) return crcA >>> 0;
  return (multiplyModP(shiftForBytes(lengthB), crcA) ^ crcB) >>> 0;
}
