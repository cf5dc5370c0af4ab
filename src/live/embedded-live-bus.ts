/** The bus of a node on its own: records go straight to this node's hub; there is nobody to announce to. */
import type { LiveTapOutput } from '../ingest/live-tap.ts';
import type { LiveBus, LiveBusHandlers } from './live-bus.ts';

export class EmbeddedLiveBus implements LiveBus {
  readonly shared = false;
  private handlers: LiveBusHandlers | undefined;

  async start(handlers: LiveBusHandlers): Promise<void> {
    this.handlers = handlers;
  }

  publishRecords(zoneId: string, outputs: readonly LiveTapOutput[]): void {
    this.handlers?.onRecords(zoneId, outputs);
  }

  listen(): void {}

  announce(): void {}

  async close(): Promise<void> {
    this.handlers = undefined;
  }
}
