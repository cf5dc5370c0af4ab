/**
 * The dashboard's only door to the server: same-origin calls to `/client/v4` with the session cookie,
 * the CSRF header on every call that changes something, and the v4 envelope unwrapped into a result.
 */

/** One error of a failed call, with the JSON pointer of the input that caused it when the API gave one. */
export interface ApiProblem {
  readonly code: number;
  readonly message: string;
  readonly pointer: string | undefined;
}

/**
 * The outcome of one API call: the envelope's `result` with its `messages` (as text) and `result_info`,
 * or its errors and the HTTP status.
 */
export type ApiResult<T> =
  | { readonly ok: true; readonly status: number; readonly result: T; readonly messages: readonly string[]; readonly resultInfo: unknown }
  | { readonly ok: false; readonly status: number; readonly errors: readonly ApiProblem[] };

/** Calls the API as the signed-in user. */
export interface ApiClient {
  get<T>(path: string): Promise<ApiResult<T>>;
  send<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<ApiResult<T>>;
  /** Sends `text` as a `text/plain` body (a SQL query). */
  sendText<T>(method: 'POST', path: string, text: string): Promise<ApiResult<T>>;
}

export const apiBase = '/client/v4';

/** The code the API answers with when a request carries no valid credential (the session ended). */
export const sessionGoneCode = 9106;

function problemsOf(body: unknown, status: number): ApiProblem[] {
  const errors = typeof body === 'object' && body !== null ? (body as { errors?: unknown }).errors : undefined;
  if (!Array.isArray(errors) || errors.length === 0) {
    return [{ code: 0, message: `The server answered with HTTP ${status} and no explanation.`, pointer: undefined }];
  }
  return errors.map((entry: unknown) => {
    const e = (typeof entry === 'object' && entry !== null ? entry : {}) as { code?: unknown; message?: unknown; source?: { pointer?: unknown } };
    return {
      code: typeof e.code === 'number' ? e.code : 0,
      message: typeof e.message === 'string' ? e.message : 'unknown error',
      pointer: typeof e.source?.pointer === 'string' ? e.source.pointer : undefined,
    };
  });
}

/** The envelope's `messages` as text: the v4 API gives `{code, message}` objects, some clients plain strings. */
function messageTexts(body: unknown): string[] {
  const messages = typeof body === 'object' && body !== null ? (body as { messages?: unknown }).messages : undefined;
  if (!Array.isArray(messages)) return [];
  return messages.flatMap((m: unknown) => {
    if (typeof m === 'string') return [m];
    const text = typeof m === 'object' && m !== null ? (m as { message?: unknown }).message : undefined;
    return typeof text === 'string' ? [text] : [];
  });
}

/**
 * Makes one call and unwraps the envelope. The result is typed by the caller: the server is this
 * project's own API, whose shapes the API tests pin down, so the dashboard does not re-check them.
 */
export async function callApi<T>(method: string, path: string, options: { body?: unknown; text?: string; csrfToken?: string } = {}): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.text !== undefined) headers['content-type'] = 'text/plain; charset=utf-8';
  if (options.csrfToken !== undefined && method !== 'GET') headers['x-csrf-token'] = options.csrfToken;
  let response: Response;
  try {
    response = await fetch(`${apiBase}${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      body: options.text ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    });
  } catch {
    return { ok: false, status: 0, errors: [{ code: 0, message: 'The server could not be reached. Check that logexport is running, then try again.', pointer: undefined }] };
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) return { ok: false, status: response.status, errors: problemsOf(body, response.status) };
  const envelope = typeof body === 'object' && body !== null ? (body as { result?: unknown; result_info?: unknown }) : {};
  return { ok: true, status: response.status, result: envelope.result as T, messages: messageTexts(body), resultInfo: envelope.result_info };
}

/** A client for a signed-in session; `onSessionGone` runs when the server no longer knows the session. */
export function createApiClient(csrfToken: string, onSessionGone: () => void): ApiClient {
  const watch = <T>(answer: ApiResult<T>): ApiResult<T> => {
    if (!answer.ok && answer.errors.some((e) => e.code === sessionGoneCode)) onSessionGone();
    return answer;
  };
  return {
    get: async (path) => watch(await callApi('GET', path)),
    send: async (method, path, body) => watch(await callApi(method, path, { body, csrfToken })),
    sendText: async (method, path, text) => watch(await callApi(method, path, { text, csrfToken })),
  };
}

/** The messages of a failed call, as one sentence list. */
export function messagesOf(problems: readonly ApiProblem[]): string {
  return problems.map((p) => p.message).join(' ');
}
