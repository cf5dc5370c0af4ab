/**
 * Target 8: OTLP/HTTP logs in. The bench's events sent as OTLP protobuf (each record's body the event as a
 * key-value list, as a log shipper forwarding logexport events sends them) to
 * `/ingest/zones/{zone}/otlp/v1/logs`, through delivery, against the same events sent as NDJSON to HTTP
 * ingest in the same run: at least 0.8× the events per second.
 */
import generatedRoot from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import { postLoad, startNodeUnderTest, type LoadEndpoint, type NodeUnderTest } from './node-under-test.ts';
import { makeEvent, makeEventLines, seededRandom } from './records.ts';

/** What target 8 runs with: the same settings, fields, filter and custom fields as the other targets. */
export interface OtlpBenchSetup {
  readonly seconds: number;
  readonly env: Readonly<Record<string, string>>;
  readonly fields: readonly string[];
  readonly filter: string;
  readonly customFields: unknown;
}

interface MessageType {
  fromObject(object: unknown): unknown;
  encode(message: unknown): { finish(): Uint8Array };
  decode(bytes: Uint8Array): { partialSuccess?: { rejectedLogRecords?: number | { toNumber(): number } } | null };
}
const logsV1 = (generatedRoot as unknown as { opentelemetry: { proto: { collector: { logs: { v1: Record<string, MessageType> } } } } }).opentelemetry.proto.collector.logs.v1;
const requestType = logsV1.ExportLogsServiceRequest as MessageType;
const responseType = logsV1.ExportLogsServiceResponse as MessageType;

const eventsPerRequest = 2000;
const concurrency = 4;
const timestampKeys = new Set(['EdgeStartTimestamp', 'EdgeEndTimestamp']);

/** A JSON value of an event as an OTLP AnyValue object (protobufjs `fromObject` form). */
function anyValue(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return timestampKeys.has(key) ? { intValue: value } : { stringValue: value };
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: value } : { doubleValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map((item) => anyValue(item)) } };
  return { kvlistValue: { values: Object.entries(value as Record<string, unknown>).map(([k, v]) => ({ key: k, value: anyValue(v, k) })) } };
}

function encodeRequest(events: readonly Record<string, unknown>[]): Buffer {
  const logRecords = events.map((event) => ({ timeUnixNano: String(event.EdgeEndTimestamp), body: anyValue(event) }));
  const message = requestType.fromObject({ resourceLogs: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] }, scopeLogs: [{ logRecords }] }] });
  return Buffer.from(requestType.encode(message).finish());
}

interface Measured {
  readonly accepted: number;
  readonly delivered: number;
  readonly rate: number;
  /** CPU seconds of the node per accepted event. */
  readonly cpuPerEvent: number;
}

async function measure(setup: OtlpBenchSetup, nextBody: () => Buffer, endpoint: ((node: NodeUnderTest) => LoadEndpoint) | undefined): Promise<Measured> {
  const node = await startNodeUnderTest({ ...setup.env });
  try {
    await node.api('PUT', `/zones/${node.zoneId}/rulesets/phases/http_log_custom_fields/entrypoint`, setup.customFields);
    await node.createJob('one', { field_names: setup.fields }, setup.filter, { max_upload_records: 100_000, max_upload_bytes: 5_000_000 });
    const cpu0 = node.cpuSeconds();
    const start = performance.now();
    const until = start + setup.seconds * 1000;
    let accepted = 0;
    await postLoad(
      node,
      () => (performance.now() < until ? nextBody() : undefined),
      concurrency,
      (status, events) => {
        if (status === 200) accepted += events;
      },
      endpoint?.(node),
    );
    // Stopping delivers what is queued, so the time counts delivery too (as target 1 measures).
    await node.stop();
    const total = (performance.now() - start) / 1000;
    return { accepted, delivered: node.deliveredLines('one').length, rate: accepted / total, cpuPerEvent: (node.cpuSeconds() - cpu0) / Math.max(1, accepted) };
  } finally {
    node.dispose();
  }
}

/** Runs target 8 and prints its figures; resolves whether it holds and why. */
export async function targetOtlp(setup: OtlpBenchSetup): Promise<{ holds: boolean; detail: string }> {
  console.log('8. OTLP/HTTP logs in: protobuf ingest → delivered, against NDJSON ingest of the same events');
  const lines = makeEventLines(eventsPerRequest);
  const random = seededRandom(42);
  const events = Array.from({ length: eventsPerRequest }, (_, i) => makeEvent(i, random));
  // Every request differs in its first event (as target 1's do), so no two requests are the same content.
  const sharedNdjson = Buffer.from(lines.slice(1).join('\n') + '\n');
  // Protobuf messages concatenated are one message with their repeated fields joined.
  const sharedOtlp = encodeRequest(events.slice(1));
  let counter = 0;
  const ndjsonBody = () => Buffer.concat([Buffer.from((lines[0] ?? '').replace(/"RayID":"[^"]*"/, `"RayID":"u${counter++}"`) + '\n'), sharedNdjson]);
  const otlpBody = () => Buffer.concat([encodeRequest([{ ...events[0], RayID: `u${counter++}` }]), sharedOtlp]);

  const native = await measure(setup, ndjsonBody, undefined);
  line('NDJSON ingest, through delivery', `${Math.round(native.rate)} events/s (${native.accepted} accepted, ${native.delivered} delivered), ${(native.cpuPerEvent * 1e6).toFixed(1)} µs CPU/event`);
  const otlp = await measure(setup, otlpBody, (node) => ({
    path: `/ingest/zones/${node.zoneId}/otlp/v1/logs`,
    contentType: 'application/x-protobuf',
    eventsOf: (answer) => {
      const rejected = responseType.decode(answer).partialSuccess?.rejectedLogRecords ?? 0;
      return eventsPerRequest - (typeof rejected === 'number' ? rejected : rejected.toNumber());
    },
  }));
  line('OTLP protobuf ingest, through delivery', `${Math.round(otlp.rate)} events/s (${otlp.accepted} accepted, ${otlp.delivered} delivered), ${(otlp.cpuPerEvent * 1e6).toFixed(1)} µs CPU/event`);
  const ratio = otlp.rate / native.rate;
  const sameShare = native.accepted > 0 && otlp.accepted > 0 ? Math.abs(otlp.delivered / otlp.accepted - native.delivered / native.accepted) < 0.01 : false;
  line('delivered share (filter) the same for both', sameShare ? 'yes' : 'NO');
  return { holds: ratio >= 0.8 && sameShare, detail: `${ratio.toFixed(2)}× NDJSON ingest of the same events (target ≥ 0.8×)` };
}

function line(label: string, value: string): void {
  console.log(`  ${label.padEnd(44)} ${value}`);
}
