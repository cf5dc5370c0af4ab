/**
 * The `native` format: one NDJSON event per line, exactly as `POST /ingest/zones/{zone}/http_requests` takes
 * it (docs/ingest.md), checked by the same parser. nginx writes it itself with contrib/nginx/. An event
 * without a `RayID` gets one derived from the line's place in its file (derived-ray-id.ts).
 */
import type { IngestLineParser } from '../../domain/datasets/ingest-event.ts';
import { derivedRayId } from './derived-ray-id.ts';
import type { LineDecoder } from './source-format.ts';

/** The decoder of native lines that checks each line with `parse` (the compiled `http_requests` parser). */
export function nativeDecoder(parse: IngestLineParser): LineDecoder {
  return (line, origin) => {
    const result = parse(line);
    if (!result.ok) return result;
    const record = result.value.record;
    if (record.RayID === undefined) record.RayID = derivedRayId(origin);
    return result;
  };
}
