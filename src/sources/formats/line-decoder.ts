/** The decoder of a source format: the only switch on the format. */
import type { IngestLineParser } from '../../domain/datasets/ingest-event.ts';
import { caddyDecoder } from './caddy.ts';
import { nativeDecoder } from './native.ts';
import type { LineDecoder, SourceFormat } from './source-format.ts';

/** The decoder of `format`, checking events with `parse` (the compiled `http_requests` parser). */
export function lineDecoderFor(format: SourceFormat, parse: IngestLineParser): LineDecoder {
  switch (format) {
    case 'native':
      return nativeDecoder(parse);
    case 'caddy':
      return caddyDecoder(parse);
  }
}
