/**
 * Live filter check against the server: `POST …/logexport/validate/filter {dataset, filter}` answers
 * `{valid, message}` with the message job create would give. A server without that route (404, code
 * 7000) is reported as unavailable, and the dashboard relies on its own checks and on job create.
 */
import { messagesOf, type ApiClient } from './api-client.ts';

/** What the server said about a filter. */
export type FilterVerdict =
  | { readonly kind: 'valid' }
  | { readonly kind: 'invalid'; readonly message: string }
  | { readonly kind: 'unavailable' };

const routeNotFoundCode = 7000;

/** Asks the server whether `filter` is a valid filter for `dataset` in the zone. */
export async function validateFilter(api: ApiClient, zoneId: string, dataset: string, filter: string): Promise<FilterVerdict> {
  const answer = await api.send<{ valid: boolean; message: string }>('POST', `/zones/${zoneId}/logexport/validate/filter`, { dataset, filter });
  if (answer.ok) return answer.result.valid ? { kind: 'valid' } : { kind: 'invalid', message: answer.result.message };
  if (answer.status === 404 && answer.errors.some((e) => e.code === routeNotFoundCode)) return { kind: 'unavailable' };
  if (answer.status === 400) return { kind: 'invalid', message: messagesOf(answer.errors) };
  return { kind: 'unavailable' };
}
