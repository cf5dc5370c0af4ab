/**
 * One `http_requests` event as the pipeline carries it from ingest to the formatter.
 *
 * Canonical form (what ingest produces and every later stage may rely on):
 * - keys are dataset field names; values have the JSON type of the field's catalogue type;
 * - `timestamp` fields (`EdgeStartTimestamp`, `EdgeEndTimestamp`) are decimal strings of integer Unix
 *   nanoseconds, e.g. "1506702504433000200" (a JSON number cannot hold nanoseconds exactly);
 * - `RequestHeaders`, `ResponseHeaders`, `Cookies` are objects of name → string, filled by capture;
 * - a field that is absent or null is "absent" for filters and is written as null / an empty cell.
 */
export type EventRecord = Readonly<Record<string, unknown>>;
