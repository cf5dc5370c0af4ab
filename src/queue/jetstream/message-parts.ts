/**
 * A chunk becomes one JetStream message, or several when it is larger than the server takes in one
 * message (`max_payload`, 1 MiB by default). Ingest keeps chunks near 512 KiB, so this only splits a chunk
 * that a few very large records pushed over the limit. Records are never cut: each part is whole lines.
 */
import type { ChunkInput } from '../queue.ts';

/** Splits `chunk` into parts of at most `maxBytes` each, at record boundaries; one part when it fits. */
export function messagePartsOf(chunk: ChunkInput, maxBytes: number): ChunkInput[] {
  const payload = chunk.payload;
  if (payload.byteLength <= maxBytes) return [chunk];
  const parts: ChunkInput[] = [];
  let start = 0;
  let end = start;
  let count = 0;
  while (end < payload.byteLength) {
    const newline = payload.indexOf(0x0a, end);
    const lineEnd = newline === -1 ? payload.byteLength : newline + 1;
    if (lineEnd - start > maxBytes && count > 0) {
      parts.push({ payload: payload.subarray(start, end), count });
      start = end;
      count = 0;
      continue;
    }
    if (lineEnd - start > maxBytes) {
      throw new Error(`an event of ${lineEnd - start} bytes is larger than the NATS server takes in one message (${maxBytes} bytes); raise max_payload on the server`);
    }
    end = lineEnd;
    count += 1;
  }
  if (count > 0) parts.push({ payload: payload.subarray(start, end), count });
  const total = parts.reduce((sum, part) => sum + part.count, 0);
  if (total !== chunk.count) throw new Error(`a queue chunk says it holds ${chunk.count} records but its payload has ${total} lines`);
  return parts;
}
