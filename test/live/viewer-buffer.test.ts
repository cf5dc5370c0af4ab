/**
 * A viewer's bounded buffer against a fake socket: it never holds more than its capacity, never writes
 * past the socket's high-water mark, counts every record it drops, and tells the viewer where records
 * went missing, so what the viewer receives plus what it was told it lost is exactly what was pushed.
 * Then against a real WebSocket (ws), whose write callbacks drive the buffer on once a burst outgrew the
 * socket's high-water mark.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo, Socket } from 'node:net';
import fc from 'fast-check';
import { WebSocket, WebSocketServer } from 'ws';
import { ViewerBuffer, type ViewerSink } from '../../src/live/viewer-buffer.ts';
import { webSocketViewer } from '../../src/live/websocket-viewer.ts';

/** A socket whose send buffer drains only when told to; like a real socket's write callback, it says success with null. */
function fakeSocket() {
  const sent: string[] = [];
  let buffered = 0;
  const waiting: { size: number; done: (error?: Error | null) => void }[] = [];
  const sink: ViewerSink = {
    send(text, done) {
      sent.push(text);
      buffered += text.length;
      waiting.push({ size: text.length, done });
    },
    bufferedAmount: () => buffered,
  };
  return {
    sink,
    sent,
    /** The operating system takes everything buffered so far. */
    drain() {
      for (const w of waiting.splice(0)) {
        buffered -= w.size;
        w.done(null);
      }
    },
  };
}

const turn = () => new Promise((r) => setImmediate(r));

/** Records received, and drops announced, from what the fake socket got. */
function read(sent: readonly string[]): { records: string[]; dropped: number } {
  let dropped = 0;
  const records: string[] = [];
  for (const text of sent) {
    const parsed = JSON.parse(text) as { control?: string; dropped?: number; dropped_total?: number };
    if (parsed.control === 'dropped') {
      dropped += parsed.dropped ?? 0;
      // Each message's total is what the messages so far announced, so a viewer can reconcile them.
      assert.equal(parsed.dropped_total, dropped, text);
    } else records.push(text);
  }
  return { records, dropped };
}

describe('a viewer buffer', () => {
  it('writes every record in order while the socket keeps up', async () => {
    const s = fakeSocket();
    const buffer = new ViewerBuffer(s.sink, 10, 1000);
    buffer.push(['{"a":1}', '{"a":2}']);
    buffer.push(['{"a":3}']);
    await turn();
    assert.deepEqual(s.sent, ['{"a":1}', '{"a":2}', '{"a":3}']);
    assert.deepEqual(buffer.totals, { sent: 3, dropped: 0 });
  });

  it('holds at most its capacity for a stalled socket, then reports the drop right where it happened', async () => {
    const s = fakeSocket();
    const buffer = new ViewerBuffer(s.sink, 3, 10);
    buffer.push(['{"n":1}', '{"n":2}']);
    await turn();
    // The socket is over its high-water mark now: nothing more is written.
    buffer.push(['{"n":3}', '{"n":4}', '{"n":5}', '{"n":6}', '{"n":7}']);
    await turn();
    assert.equal(s.sent.length, 2);
    assert.equal(buffer.length, 3);
    assert.equal(buffer.totals.dropped, 2);
    buffer.push(['{"n":8}'], 4);
    s.drain();
    for (let i = 0; i < 10; i++) {
      await turn();
      s.drain();
    }
    assert.deepEqual(s.sent, ['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}', '{"n":5}', '{"control":"dropped","dropped":7,"dropped_total":7}']);
  });

  it('accounts for every record pushed: received plus reported dropped, whatever the pace', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.record({ lines: fc.integer({ min: 0, max: 6 }), upstream: fc.integer({ min: 0, max: 3 }), drain: fc.boolean() }), { maxLength: 25 }),
        async (capacity, steps) => {
          const s = fakeSocket();
          const buffer = new ViewerBuffer(s.sink, capacity, 20);
          let pushed = 0;
          let upstream = 0;
          for (const step of steps) {
            const lines = Array.from({ length: step.lines }, () => `{"n":${pushed++}}`);
            upstream += step.upstream;
            buffer.push(lines, step.upstream);
            assert.ok(buffer.length <= capacity);
            await turn();
            if (step.drain) s.drain();
          }
          for (let i = 0; i < 50 && (buffer.length > 0 || s.sent.length === 0); i++) {
            s.drain();
            await turn();
          }
          s.drain();
          await turn();
          s.drain();
          await turn();
          const { records, dropped } = read(s.sent);
          assert.equal(records.length + dropped, pushed + upstream);
          const numbers = records.map((r) => (JSON.parse(r) as { n: number }).n);
          assert.deepEqual(numbers, [...numbers].sort((a, b) => a - b));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('writes a burst larger than a real socket\'s high-water mark to its end, with no later record to wake it', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    const accepted = new Promise<WebSocket>((resolve) => server.once('connection', resolve));
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const received: string[] = [];
    client.on('message', (data) => received.push((data as Buffer).toString('utf8')));
    await new Promise((resolve) => client.once('open', resolve));
    const socket = await accepted;
    const raw = (socket as unknown as { _socket: Socket })._socket;
    try {
      // Wired as the route wires it: the burst is corked, so the socket's buffer passes the mark within one pump.
      const buffer = new ViewerBuffer(
        webSocketViewer(socket, raw),
        1000,
        4096,
      );
      const lines = Array.from({ length: 500 }, (_, n) => `{"n":${n},"pad":"${'x'.repeat(100)}"}`);
      buffer.push(lines, 3);
      const deadline = Date.now() + 5000;
      while (received.length < lines.length + 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(read(received), { records: lines, dropped: 3 });
      assert.equal(buffer.length, 0);
    } finally {
      client.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
