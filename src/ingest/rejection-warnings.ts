/**
 * Warnings about events rejected one by one (an OTLP exporter reports a partial success as success and
 * logs nothing, so the node's log is where its operator learns of them): one line per zone, way in and
 * reason at most once a minute, saying how many were rejected since the previous line and the first reasons.
 */
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { RejectedEvents, WayIn } from './ingest-figures.ts';

/** How long a zone, way in and reason stays quiet after a warning. */
export const rejectionWarningEveryMs = 60_000;

const wayNames: Record<WayIn, string> = { http: 'HTTP ingest', otlp: 'OTLP', tail: 'a tailed file' };
const recordNames: Record<WayIn, string> = { http: 'events', otlp: 'log records', tail: 'lines' };

export class RejectionWarnings {
  private readonly clock: Clock;
  private readonly log: Logger;
  /** Per zone, way in and reason: when the last line was written, and rejections counted since without a line. */
  private readonly quiet = new Map<string, { readonly sinceMs: number; unreported: number }>();

  constructor(clock: Clock, log: Logger) {
    this.clock = clock;
    this.log = log;
  }

  /** Notes one request's (or batch's) rejections; writes a line for each reason not warned about in the last minute. */
  note(zoneId: string, way: WayIn, rejected: RejectedEvents): void {
    const now = this.clock.now();
    for (const [reason, count] of Object.entries(rejected.byReason)) {
      if (count <= 0) continue;
      const key = `${zoneId}\u0000${way}\u0000${reason}`;
      const entry = this.quiet.get(key);
      if (entry !== undefined && now - entry.sinceMs < rejectionWarningEveryMs) {
        entry.unreported += count;
        continue;
      }
      const total = count + (entry?.unreported ?? 0);
      this.quiet.set(key, { sinceMs: now, unreported: 0 });
      const where = zoneId === '' ? 'no zone' : `zone ${zoneId}`;
      const since = entry === undefined ? '' : ' since the last warning';
      const examples = rejected.first.filter((r) => r.reason === reason).map((r) => r.text);
      const first = examples.length === 0 ? '' : ` The first: ${examples.join('; ')}.`;
      this.log.warn(
        { zoneId, wayIn: way, reason, rejected: total },
        `${wayNames[way]} rejected ${total} ${recordNames[way]} for ${where} (${reason})${since}; the sender was told in its answer, and /metrics counts them as logexport_ingest_rejected_events_total.${first} (At most one such line a minute per zone and reason.)`,
      );
    }
    // Forget quiet periods long over, so the map does not grow with every zone ever seen.
    if (this.quiet.size > 10_000) for (const [key, entry] of this.quiet) if (now - entry.sinceMs >= rejectionWarningEveryMs && entry.unreported === 0) this.quiet.delete(key);
  }
}
