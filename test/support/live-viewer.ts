/** A real WebSocket client (ws) watching an Instant Logs session: collects records and control messages. */
import { WebSocket } from 'ws';

/** What a viewer has received. */
export interface LiveViewer {
  readonly socket: WebSocket;
  /** Record messages, as received (text). */
  readonly records: string[];
  /** Control messages, parsed. */
  readonly controls: { control: string; [key: string]: unknown }[];
  /** Sum of `events` over the stats messages so far. */
  events(): number;
  /** Resolves once `ready()` holds, or rejects after `timeoutMs`. */
  until(what: string, ready: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Connects to a session's `destination_conf`. */
export async function connectViewer(url: string, headers: Record<string, string> = {}): Promise<LiveViewer> {
  const socket = new WebSocket(url, { headers });
  const records: string[] = [];
  const controls: LiveViewer['controls'] = [];
  socket.on('message', (data) => {
    const text = (data as Buffer).toString('utf8');
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (typeof parsed.control === 'string') controls.push(parsed as LiveViewer['controls'][number]);
    else records.push(text);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_req, res) => reject(new Error(`the server answered ${res.statusCode}`)));
  });
  return {
    socket,
    records,
    controls,
    events: () => controls.filter((c) => c.control === 'stats').reduce((n, c) => n + Number(c.events), 0),
    async until(what, ready, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!ready()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close() {
      return new Promise((resolve) => {
        if (socket.readyState === WebSocket.CLOSED) return resolve();
        socket.once('close', () => resolve());
        socket.close();
      });
    },
  };
}

/** FNV-1a (32 bit) over UTF-16 code units, written here again so tests check the server's sampling independently. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Whether a record with this RayID is one of the 1-in-`sample` kept by the RayID hash. */
export function sampledIn(rayId: string, sample: number): boolean {
  return fnv1a(rayId) < (1 / sample) * 0x1_0000_0000;
}
