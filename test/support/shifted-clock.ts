import type { Clock } from '../../src/core/clock.ts';

/** The system clock moved by a settable offset, so a test can make things happen in the past. */
export class ShiftedClock implements Clock {
  offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }
}
