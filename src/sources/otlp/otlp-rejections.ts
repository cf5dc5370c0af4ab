/** The bookkeeping of the records of an OTLP request that were rejected, which the answer counts and names. */

/** Why records are rejected, in a word: the `reason` label of /metrics' rejected events. */
export type OtlpRejectCode = 'not_http_request' | 'no_timestamp' | 'bad_duration' | 'bad_status_code' | 'invalid_event' | 'no_host' | 'unknown_host';

/** A record left out, by its 0-based position in the request, and why (in a word, and in a sentence). */
export interface OtlpRejection {
  readonly record: number;
  readonly code: OtlpRejectCode;
  readonly reason: string;
}

/** Rejected records: how many, how many for each reason, and the first few (lowest positions) with their reasons. */
export interface OtlpRejections {
  readonly count: number;
  readonly byCode: Readonly<Partial<Record<OtlpRejectCode, number>>>;
  readonly first: readonly OtlpRejection[];
}

/** How many rejections an answer names before it only counts them. */
export const namedRejections = 5;

export const noRejections: OtlpRejections = { count: 0, byCode: {}, first: [] };

/** Joins rejection lists, keeping the first few by position. */
export function mergeRejections(...lists: readonly OtlpRejections[]): OtlpRejections {
  const first = lists.flatMap((list) => list.first).sort((a, b) => a.record - b.record).slice(0, namedRejections);
  const byCode: Partial<Record<OtlpRejectCode, number>> = {};
  for (const list of lists) for (const [code, n] of Object.entries(list.byCode) as [OtlpRejectCode, number][]) byCode[code] = (byCode[code] ?? 0) + n;
  return { count: lists.reduce((n, list) => n + list.count, 0), byCode, first };
}

/** The `error_message` of a partial success: how many of how many, and the first reasons. */
export function rejectionMessage(rejections: OtlpRejections, total: number): string {
  if (rejections.count === 0) return '';
  const named = rejections.first.map((r) => `log record ${r.record + 1}: ${r.reason}`);
  const more = rejections.count > named.length ? `; and ${rejections.count - named.length} more` : '';
  return `${rejections.count} of ${total} log records rejected — ${named.join('; ')}${more}`;
}
