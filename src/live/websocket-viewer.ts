/**
 * A `ws` WebSocket seen as a viewer's socket: sends keep ws's write callback (success is `null`), and a
 * burst of records is corked on the connection's own TCP socket so it leaves in one write.
 */
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { ViewerSocket } from './live-hub.ts';

export function webSocketViewer(socket: WebSocket, raw: Socket): ViewerSocket {
  return {
    send: (text, done) => socket.send(text, done),
    bufferedAmount: () => socket.bufferedAmount,
    batch: (sends) => {
      raw.cork();
      try {
        sends();
      } finally {
        raw.uncork();
      }
    },
    close: (code, reason) => socket.close(code, reason),
  };
}
