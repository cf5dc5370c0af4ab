/**
 * Which receive times a Log Explorer query reads: everything the zone still retains — from the retention
 * (LOGEXPORT_RETENTION_DAYS) ago until now, with a day's margin ahead for nodes whose clocks run a little
 * ahead. Segments are chosen by their names' receive times (retained-files.ts), so a query's cost grows with
 * what the zone holds, not with the window's length. A segment that straddles the start is read whole: an
 * event may be seen up to the expiry's next run (a minute) after its retention ended. Narrowing the window
 * by the query's own WHERE on a timestamp is left for later: receive time and EdgeStartTimestamp differ, and
 * a wrong bound would drop rows silently. Pure.
 */
import type { MsWindow } from '../retention/retained-files.ts';

const dayMs = 86_400_000;

/** The window of a query run at `nowMs` for a retention of `retentionMs`. */
export function explorerWindow(nowMs: number, retentionMs: number): MsWindow {
  return { startMs: nowMs - retentionMs, endMs: nowMs + dayMs };
}
