/**
 * Target 8: OTLP/HTTP logs in, through delivery, against NDJSON ingest of the same events in the same run:
 * at least 0.8× the events per second for OTLP protobuf in both shapes senders use — each record's body the
 * event as a key-value list (a log shipper forwarding logexport events), and the event as attributes (the
 * HTTP semantic conventions, as proxies and SDKs send them; fields without a convention as attributes named
 * after the field) — to `/ingest/zones/{zone}/otlp/v1/logs`. Printed beside it as reports: OTLP JSON
 * against NDJSON, and the host-routed endpoint (`/ingest/otlp/v1/logs`) against the zone endpoint.
 */
import generatedRoot from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import { postLoad, startNodeUnderTest, type LoadEndpoint, type NodeUnderTest } from './node-under-test.ts';
import { makeEvent, seededRandom } from './records.ts';

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
/** The host of the bench's events: under the bench node's zone, so the host-routed endpoint routes them there. */
const host = 'www.bench.example.com';

type BenchEvent = Record<string, unknown> & { readonly RawRequestHeaders: [string, string][]; readonly RawResponseHeaders: [string, string][] };

/** The bench's events (records.ts), on a host of the bench zone; `unique` makes the first event of each request differ. */
function benchEvents(): BenchEvent[] {
  const random = seededRandom(42);
  return Array.from({ length: eventsPerRequest }, (_, i) => {
    const event = makeEvent(i, random) as BenchEvent;
    return { ...event, ClientRequestHost: host, RawRequestHeaders: event.RawRequestHeaders.map(([name, value]) => [name, name === 'Host' ? host : value]) };
  });
}

/** A JSON value of an event as an OTLP AnyValue object (protobufjs `fromObject` form). */
function anyValue(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return timestampKeys.has(key) ? { intValue: value } : { stringValue: value };
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: value } : { doubleValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map((item) => anyValue(item)) } };
  return { kvlistValue: { values: Object.entries(value as Record<string, unknown>).map(([k, v]) => ({ key: k, value: anyValue(v, k) })) } };
}

/** The native shape: the event is the record's body. */
function nativeRecord(event: BenchEvent): unknown {
  return { timeUnixNano: String(event.EdgeEndTimestamp), body: anyValue(event) };
}

/** The fields the semantic conventions carry, and how (the rest are sent as attributes named after the field). */
const conventions: Record<string, (event: BenchEvent) => [string, unknown][]> = {
  ClientRequestMethod: (e) => [['http.request.method', e.ClientRequestMethod]],
  ClientRequestScheme: (e) => [['url.scheme', e.ClientRequestScheme]],
  ClientRequestHost: (e) => [['server.address', e.ClientRequestHost]],
  ClientRequestPath: (e) => [['url.path', e.ClientRequestPath]],
  ClientRequestURI: (e) => [['url.query', String(e.ClientRequestURI).split('?')[1]]],
  ClientIP: (e) => [['client.address', e.ClientIP]],
  ClientSrcPort: (e) => [['client.port', e.ClientSrcPort]],
  ClientCountry: (e) => [['geo.country.iso_code', String(e.ClientCountry).toUpperCase()]],
  ClientRequestUserAgent: (e) => [['user_agent.original', e.ClientRequestUserAgent]],
  ClientRequestProtocol: () => [['network.protocol.version', '2']],
  ClientRequestBytes: (e) => [['http.request.body.size', e.ClientRequestBytes]],
  EdgeResponseStatus: (e) => [['http.response.status_code', e.EdgeResponseStatus]],
  EdgeResponseBytes: (e) => [['http.response.size', e.EdgeResponseBytes]],
  EdgeStartTimestamp: (e) => [['http.server.request.duration', Number(BigInt(String(e.EdgeEndTimestamp)) - BigInt(String(e.EdgeStartTimestamp))) / 1e9]],
  EdgeEndTimestamp: () => [],
  RawRequestHeaders: (e) => e.RawRequestHeaders.map(([name, value]) => [`http.request.header.${name.toLowerCase()}`, [value]]),
  RawResponseHeaders: (e) => e.RawResponseHeaders.map(([name, value]) => [`http.response.header.${name.toLowerCase()}`, [value]]),
};

/** The semantic-convention shape: the event as the record's attributes, as a proxy's access logger writes it. */
function conventionRecord(event: BenchEvent): unknown {
  const attributes: [string, unknown][] = [];
  for (const [field, value] of Object.entries(event)) attributes.push(...(conventions[field]?.(event) ?? [[field, value]]));
  return {
    timeUnixNano: String(event.EdgeEndTimestamp),
    body: { stringValue: `${String(event.ClientRequestMethod)} ${String(event.ClientRequestURI)}` },
    attributes: attributes.map(([key, value]) => ({ key, value: anyValue(value) })),
  };
}

function requestOf(records: readonly unknown[]): unknown {
  return { resourceLogs: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] }, scopeLogs: [{ scope: { name: 'access' }, logRecords: records }] }] };
}

/** The OTLP JSON mapping of a request: hex ids, 64-bit integers as strings (protobufjs `toObject` is not it). */
function jsonRequestOf(records: readonly unknown[]): string {
  return JSON.stringify(requestOf(records), (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('hex') : value));
}

interface Measured {
  readonly accepted: number;
  readonly delivered: number;
  readonly rate: number;
  /** CPU seconds of the node per accepted event. */
  readonly cpuPerEvent: number;
  /** The delivered record of each probed RayID, to compare what each way in delivered. */
  readonly probed: ReadonlyMap<string, string>;
}

/** RayIDs of events every request carries, whose delivered records must be the same whichever way they came in. */
const probes = new Set(benchEvents().slice(1, 40).map((event) => String(event.RayID)));

/** Loads a fresh node with bodies from `nextBody` for the bench's time (to `endpoint`, NDJSON ingest when undefined), through delivery. */
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
    const delivered = node.deliveredLines('one');
    const probed = new Map<string, string>();
    for (const record of delivered) {
      const rayId = /"RayID":"([^"]*)"/.exec(record)?.[1];
      if (rayId !== undefined && probes.has(rayId) && !probed.has(rayId)) probed.set(rayId, record);
    }
    return { accepted, delivered: delivered.length, rate: accepted / total, cpuPerEvent: (node.cpuSeconds() - cpu0) / Math.max(1, accepted), probed };
  } finally {
    node.dispose();
  }
}

/** The OTLP endpoint of a node (the zone's, or the host-routed one), counting what each answer accepted. */
function otlpEndpoint(contentType: 'application/x-protobuf' | 'application/json', routed: boolean): (node: NodeUnderTest) => LoadEndpoint {
  return (node) => ({
    path: routed ? '/ingest/otlp/v1/logs' : `/ingest/zones/${node.zoneId}/otlp/v1/logs`,
    contentType,
    eventsOf: (answer) => {
      if (contentType === 'application/json') {
        const parsed = JSON.parse(answer.toString()) as { partialSuccess?: { rejectedLogRecords?: string } };
        return eventsPerRequest - Number(parsed.partialSuccess?.rejectedLogRecords ?? 0);
      }
      const rejected = responseType.decode(answer).partialSuccess?.rejectedLogRecords ?? 0;
      return eventsPerRequest - (typeof rejected === 'number' ? rejected : rejected.toNumber());
    },
  });
}

/** Runs target 8 and prints its figures and reports; resolves whether it holds and why. */
export async function targetOtlp(setup: OtlpBenchSetup): Promise<{ holds: boolean; detail: string }> {
  console.log('8. OTLP/HTTP logs in: protobuf ingest → delivered, against NDJSON ingest of the same events');
  const events = benchEvents();
  let counter = 0;
  // Every request differs in its first event (as target 1's do), so no two requests are the same content.
  const unique = (): BenchEvent => ({ ...(events[0] as BenchEvent), RayID: `u${counter++}` });
  const sharedNdjson = Buffer.from(events.slice(1).map((e) => JSON.stringify(e).replace(/"(EdgeStartTimestamp|EdgeEndTimestamp)":"(\d+)"/g, '"$1":$2')).join('\n') + '\n');
  const ndjsonBody = () => Buffer.concat([Buffer.from(JSON.stringify(unique()).replace(/"(EdgeStartTimestamp|EdgeEndTimestamp)":"(\d+)"/g, '"$1":$2') + '\n'), sharedNdjson]);
  // Protobuf messages concatenated are one message with their repeated fields joined.
  const protobufBodies = (shape: (event: BenchEvent) => unknown) => {
    const shared = Buffer.from(requestType.encode(requestType.fromObject(requestOf(events.slice(1).map(shape)))).finish());
    return () => Buffer.concat([Buffer.from(requestType.encode(requestType.fromObject(requestOf([shape(unique())]))).finish()), shared]);
  };
  const nativeBodies = protobufBodies(nativeRecord);
  const conventionBodies = protobufBodies(conventionRecord);
  const sharedJson = events.slice(1).map(conventionRecord);
  const jsonBodies = () => Buffer.from(jsonRequestOf([conventionRecord(unique()), ...sharedJson]));

  const runs: [string, Measured][] = [];
  const run = async (label: string, bodies: () => Buffer, endpoint: ((node: NodeUnderTest) => LoadEndpoint) | undefined): Promise<Measured> => {
    const measured = await measure(setup, bodies, endpoint);
    line(label, `${Math.round(measured.rate)} events/s (${measured.accepted} accepted, ${measured.delivered} delivered), ${(measured.cpuPerEvent * 1e6).toFixed(1)} µs CPU/event`);
    runs.push([label, measured]);
    return measured;
  };
  const ndjson = await run('NDJSON ingest, through delivery', ndjsonBody, undefined);
  const native = await run('OTLP protobuf, event as body', nativeBodies, otlpEndpoint('application/x-protobuf', false));
  const conventions = await run('OTLP protobuf, event as attributes', conventionBodies, otlpEndpoint('application/x-protobuf', false));
  const json = await run('(report) OTLP JSON, event as attributes', jsonBodies, otlpEndpoint('application/json', false));
  const routed = await run('(report) OTLP protobuf, attributes, by host', conventionBodies, otlpEndpoint('application/x-protobuf', true));

  const share = (m: Measured) => (m.accepted > 0 ? m.delivered / m.accepted : Number.NaN);
  const sameShare = runs.every(([, m]) => m.accepted > 0 && Math.abs(share(m) - share(ndjson)) < 0.01);
  line('delivered share (filter) the same for all', sameShare ? 'yes' : 'NO');
  const differing = runs.filter(([, m]) => m.probed.size === 0 || [...ndjson.probed].some(([rayId, record]) => m.probed.get(rayId) !== record)).map(([label]) => label);
  line(`the same delivered records (${ndjson.probed.size} probed)`, differing.length === 0 ? 'yes' : `NO: ${differing.join('; ')}`);
  line('(report) OTLP JSON against NDJSON', `${(json.rate / ndjson.rate).toFixed(2)}×`);
  line('(report) host-routed against the zone endpoint', `${(routed.rate / conventions.rate).toFixed(2)}×`);
  const nativeRatio = native.rate / ndjson.rate;
  const conventionRatio = conventions.rate / ndjson.rate;
  return {
    holds: nativeRatio >= 0.8 && conventionRatio >= 0.8 && sameShare && differing.length === 0,
    detail: `${nativeRatio.toFixed(2)}× (event as body) and ${conventionRatio.toFixed(2)}× (event as attributes) NDJSON ingest of the same events (target ≥ 0.8× each)`,
  };
}

function line(label: string, value: string): void {
  console.log(`  ${label.padEnd(48)} ${value}`);
}
