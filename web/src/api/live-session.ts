/**
 * Instant Logs through the API: `POST …/logexport/edge/jobs` makes a live session, and its
 * `destination_conf` is the WebSocket the browser opens to watch it.
 */
import type { ApiClient, ApiResult } from './api-client.ts';
import { parseLiveMessage, type LiveMessage } from '../model/live-view.ts';

/** A live session as the API answers it. */
export interface LiveSessionAnswer {
  readonly session_id: string;
  readonly destination_conf: string;
  readonly fields: string;
  readonly filter: string | null;
  readonly sample: number;
}

/** Makes a live session of a zone. */
export function createLiveSession(api: ApiClient, zoneId: string, body: { fields: string; filter: string | null; sample: number }): Promise<ApiResult<LiveSessionAnswer>> {
  return api.send<LiveSessionAnswer>('POST', `/zones/${zoneId}/logexport/edge/jobs`, { fields: body.fields, filter: body.filter ?? undefined, sample: body.sample });
}

/** An open stream; `close` ends it (the server forgets the session once nobody watches it). */
export interface LiveStream {
  close(): void;
}

/** What a stream tells its screen. */
export interface LiveStreamHandlers {
  /** The WebSocket is open: from now on the session's records arrive. */
  onOpen(): void;
  onMessage(message: LiveMessage): void;
  /** It closed for any reason but `close()`. */
  onEnd(reason: string): void;
}

/** Opens a session's WebSocket. */
export function openLiveStream(url: string, handlers: LiveStreamHandlers): LiveStream {
  const { onMessage, onEnd } = handlers;
  const socket = new WebSocket(url);
  let closedByUs = false;
  socket.onopen = () => handlers.onOpen();
  socket.onmessage = (event: MessageEvent) => {
    if (typeof event.data === 'string') onMessage(parseLiveMessage(event.data));
  };
  socket.onclose = (event: CloseEvent) => {
    if (!closedByUs) onEnd(event.reason === '' ? 'The live stream ended.' : `The live stream ended: ${event.reason}.`);
  };
  return {
    close() {
      closedByUs = true;
      socket.close();
    },
  };
}
