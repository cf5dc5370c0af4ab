/**
 * The decoders a thread can run, by name: registered by the sources where the thread starts (the node's
 * composition root on the main thread, the worker's entry in a worker), so ingest never imports a source.
 */
import type { EventDecoder } from './event-decoder.ts';

export class EventDecoders {
  private readonly byName = new Map<string, EventDecoder>();

  /** Adds a decoder; a second one of the same name is a programming error. */
  register(decoder: EventDecoder): this {
    if (this.byName.has(decoder.name)) throw new Error(`a decoder named ${decoder.name} is registered already`);
    this.byName.set(decoder.name, decoder);
    return this;
  }

  find(name: string): EventDecoder | undefined {
    return this.byName.get(name);
  }
}
