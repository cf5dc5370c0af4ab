/**
 * The memory retained sections write their lines into, kept from one request to the next on each thread.
 * Writing a chunk's lines (~2 MiB) into freshly allocated memory costs the page faults of every page first
 * touched, and memory allocated per chunk outside V8's heap pushes the garbage collector into full
 * collections; memory in use costs neither. A section borrows a buffer while it fills and gives it back
 * when its events are all taken. Usually one section fills at a time on a thread; a source's batch for
 * several zones fills one per zone, so a few are kept.
 */

/** Free buffers kept per thread. */
const keptBuffers = 4;
/** A new buffer's size: a chunk's retained lines and then some, so it rarely grows. */
const initialBytes = 4 * 1024 * 1024;

const free: Buffer[] = [];

/** A buffer of at least `bytes` (its contents are whatever was there). */
export function borrowSectionBuffer(bytes = 0): Buffer {
  for (let i = free.length - 1; i >= 0; i--) {
    const buffer = free[i] as Buffer;
    if (buffer.length < bytes) continue;
    free.splice(i, 1);
    return buffer;
  }
  // Its own memory (not Node's shared pool), as it is kept.
  return Buffer.allocUnsafeSlow(Math.max(bytes, initialBytes));
}

/** Gives a buffer back for the next section; nothing may use it afterwards. */
export function returnSectionBuffer(buffer: Buffer): void {
  if (free.length < keptBuffers) free.push(buffer);
}
