import type { AppError } from '../core/app-error.ts';

/** One entry of `errors` / `messages` in the v4 envelope. */
export interface EnvelopeMessage {
  readonly code: number;
  readonly message: string;
  readonly source?: { readonly pointer: string };
  readonly error_chain?: readonly { readonly code: number; readonly message: string }[];
}

/** Pagination facts of a list answer. */
export interface ResultInfo {
  readonly page: number;
  readonly per_page: number;
  readonly count: number;
  readonly total_count: number;
  readonly total_pages: number;
}

/** The v4 envelope every JSON answer is wrapped in. */
export interface Envelope<T> {
  readonly success: boolean;
  readonly errors: readonly EnvelopeMessage[];
  readonly messages: readonly EnvelopeMessage[];
  readonly result: T | null;
  readonly result_info?: ResultInfo;
}

/** A successful answer. */
export function success<T>(result: T, resultInfo?: ResultInfo): Envelope<T> {
  return resultInfo === undefined
    ? { success: true, errors: [], messages: [], result }
    : { success: true, errors: [], messages: [], result, result_info: resultInfo };
}

/** A list answer with its `result_info`, paginated by page/per_page. */
export function page<T>(all: readonly T[], pageNumber = 1, perPage = Math.max(all.length, 1)): Envelope<readonly T[]> {
  const start = (pageNumber - 1) * perPage;
  const items = all.slice(start, start + perPage);
  return success(items, {
    page: pageNumber,
    per_page: perPage,
    count: items.length,
    total_count: all.length,
    total_pages: Math.max(1, Math.ceil(all.length / perPage)),
  });
}

/** A failed answer built from a typed error. */
export function failure(error: AppError): Envelope<never> {
  return {
    success: false,
    errors: error.details.map((d) => ({
      code: error.code,
      message: d.message,
      ...(d.pointer === undefined ? {} : { source: { pointer: d.pointer } }),
      ...(d.chain === undefined ? {} : { error_chain: d.chain }),
    })),
    messages: [],
    result: null,
  };
}
