/**
 * The `http_requests` dataset: every field a record may carry, with its type.
 * Field names and types follow the public product's dataset so existing jobs and tools keep working.
 */

/** The value type of a dataset field. `timestamp` fields are integer Unix nanoseconds or RFC 3339 strings. */
export type FieldType = 'string' | 'int' | 'float' | 'bool' | 'timestamp' | 'string[]' | 'int[]' | 'object';

/** One field of a dataset's catalogue. */
export interface DatasetField {
  readonly name: string;
  readonly type: FieldType;
  readonly description: string;
  readonly deprecated?: boolean;
}

/** A dataset: its id and field catalogue. */
export interface Dataset {
  readonly id: string;
  readonly fields: readonly DatasetField[];
  /** The field named exactly `name`, if the dataset has it. */
  field(name: string): DatasetField | undefined;
}

/** The fields written when a client asks for the dataset's default field set (and an Instant Logs session that names none). */
export const defaultFieldNames: readonly string[] = ['ClientIP', 'ClientRequestHost', 'ClientRequestMethod', 'ClientRequestURI', 'EdgeEndTimestamp', 'EdgeResponseBytes', 'EdgeResponseStatus', 'EdgeStartTimestamp', 'RayID'];

/** Fields filled from the zone's custom-field configuration; never sent by ingest clients. */
export const customFieldNames = ['Cookies', 'RequestHeaders', 'ResponseHeaders'] as const;

const httpRequestsFields: readonly DatasetField[] = [
  { name: 'BotDetectionIDs', type: 'int[]', description: 'IDs of BM heuristic detections (BM)' },
  { name: 'BotDetectionTags', type: 'string[]', description: 'tags of BM heuristic detections (BM)' },
  { name: 'BotScore', type: 'int', description: 'bot score; <30 usually automated (BM)' },
  { name: 'BotScoreSrc', type: 'string', description: 'engine that produced the score: Not Computed, Heuristics, Machine Learning, Behavioral Analysis, Verified Bot, JS Fingerprinting, Cloudflare Service (BM)' },
  { name: 'BotTags', type: 'string[]', description: 'bot traffic type tags (BM)' },
  { name: 'CacheCacheStatus', type: 'string', description: 'cache result: unknown, miss, expired, updating, stale, hit, ignored, bypass, revalidated, dynamic, stream_hit, deferred' },
  { name: 'CacheReserveUsed', type: 'bool', description: 'served via Cache Reserve' },
  { name: 'CacheResponseBytes', type: 'int', description: 'bytes returned by cache' },
  { name: 'CacheResponseStatus', type: 'int', description: 'status cache returned to edge', deprecated: true },
  { name: 'CacheTieredFill', type: 'bool', description: 'Tiered Cache used' },
  { name: 'ClientASN', type: 'int', description: 'client AS number' },
  { name: 'ClientCity', type: 'string', description: 'approximate client city' },
  { name: 'ClientCountry', type: 'string', description: 'ISO-3166 alpha-2 country of client IP' },
  { name: 'ClientDeviceType', type: 'string', description: 'client device type' },
  { name: 'ClientIP', type: 'string', description: 'client IP' },
  { name: 'ClientIPClass', type: 'string', description: 'unknown, badHost, searchEngine, allowlist, monitoringService, noRecord, scan, tor' },
  { name: 'ClientLatitude', type: 'string', description: 'approximate latitude' },
  { name: 'ClientLongitude', type: 'string', description: 'approximate longitude' },
  { name: 'ClientMTLSAuthCertFingerprint', type: 'string', description: 'SHA-256 of client mTLS cert (first request on connection)' },
  { name: 'ClientMTLSAuthStatus', type: 'string', description: 'unknown, ok, absent, untrusted, notyetvalid, expired' },
  { name: 'ClientRegionCode', type: 'string', description: 'ISO-3166-2 region of client IP' },
  { name: 'ClientRequestBytes', type: 'int', description: 'size of the client request' },
  { name: 'ClientRequestHost', type: 'string', description: 'requested host' },
  { name: 'ClientRequestMethod', type: 'string', description: 'HTTP method' },
  { name: 'ClientRequestPath', type: 'string', description: 'path without query string' },
  { name: 'ClientRequestProtocol', type: 'string', description: 'HTTP protocol version' },
  { name: 'ClientRequestReferer', type: 'string', description: 'Referer header' },
  { name: 'ClientRequestScheme', type: 'string', description: 'URL scheme' },
  { name: 'ClientRequestSource', type: 'string', description: 'external vs. internal Cloudflare origin of the request (e.g. eyeball, edgeWorkerFetch)' },
  { name: 'ClientRequestURI', type: 'string', description: 'path plus query string' },
  { name: 'ClientRequestUserAgent', type: 'string', description: 'User-Agent' },
  { name: 'ClientSSLCipher', type: 'string', description: 'client TLS cipher' },
  { name: 'ClientSSLProtocol', type: 'string', description: 'client TLS version; `none` if no TLS' },
  { name: 'ClientSrcPort', type: 'int', description: 'client source port' },
  { name: 'ClientTCPRTTMs', type: 'int', description: 'smoothed TCP RTT' },
  { name: 'ClientXRequestedWith', type: 'string', description: 'X-Requested-With header' },
  { name: 'ContentScanObjResults', type: 'string[]', description: 'content-scan results' },
  { name: 'ContentScanObjSizes', type: 'int[]', description: 'scanned object sizes' },
  { name: 'ContentScanObjTypes', type: 'string[]', description: 'scanned object content types' },
  { name: 'Cookies', type: 'object', description: 'custom-field cookies, name → value string' },
  { name: 'EdgeCFConnectingO2O', type: 'bool', description: 'request looped through several zones (orange-to-orange)' },
  { name: 'EdgeColoCode', type: 'string', description: 'IATA code of receiving data center' },
  { name: 'EdgeColoID', type: 'int', description: 'data center id' },
  { name: 'EdgeEndTimestamp', type: 'timestamp', description: 'when the edge finished sending the response (**timestamp**)' },
  { name: 'EdgePathingOp', type: 'string', description: 'type of response issued' },
  { name: 'EdgePathingSrc', type: 'string', description: 'security classification source' },
  { name: 'EdgePathingStatus', type: 'string', description: 'data used for handling decision' },
  { name: 'EdgeRequestHost', type: 'string', description: 'Host header sent to origin' },
  { name: 'EdgeResponseBodyBytes', type: 'int', description: 'response body size to client' },
  { name: 'EdgeResponseBytes', type: 'int', description: 'total bytes to client' },
  { name: 'EdgeResponseCompressionRatio', type: 'float', description: 'original/compressed size ratio' },
  { name: 'EdgeResponseContentType', type: 'string', description: 'response Content-Type' },
  { name: 'EdgeResponseStatus', type: 'int', description: 'status returned to client' },
  { name: 'EdgeServerIP', type: 'string', description: 'edge IP used toward origin; empty if no origin request' },
  { name: 'EdgeStartTimestamp', type: 'timestamp', description: 'when the edge received the request (**timestamp**)' },
  { name: 'EdgeTimeToFirstByteMs', type: 'int', description: 'TTFB measured at edge' },
  { name: 'FraudAttack', type: 'string', description: 'primary attack/use case from Fraud detections' },
  { name: 'FraudDetectionIDs', type: 'int[]', description: 'Fraud detection IDs' },
  { name: 'FraudDetectionTags', type: 'string[]', description: 'Fraud detection tags' },
  { name: 'FraudEmailRisk', type: 'string', description: 'email risk: low, medium, high' },
  { name: 'FraudUserID', type: 'string', description: 'Fraud-system user identifier' },
  { name: 'JA3Hash', type: 'string', description: 'MD5 of JA3 fingerprint (BM)' },
  { name: 'JA4', type: 'string', description: 'JA4 fingerprint (BM)' },
  { name: 'JA4Signals', type: 'object', description: 'per-JA4 statistics, key → number (BM)' },
  { name: 'JSDetectionPassed', type: 'string', description: 'passed, failed, missing (BM)' },
  { name: 'LeakedCredentialCheckResult', type: 'string', description: 'password_leaked, username_and_password_leaked, username_password_similar, username_leaked, clean' },
  { name: 'OriginDNSResponseTimeMs', type: 'int', description: 'origin DNS lookup time' },
  { name: 'OriginIP', type: 'string', description: 'origin IP' },
  { name: 'OriginRequestHeaderSendDurationMs', type: 'int', description: 'time to send request headers to origin' },
  { name: 'OriginResponseBytes', type: 'int', description: 'bytes from origin', deprecated: true },
  { name: 'OriginResponseDurationMs', type: 'int', description: 'upstream response time from first data center (replaces OriginResponseTime)' },
  { name: 'OriginResponseHTTPExpires', type: 'string', description: 'origin Expires header (RFC 1123)' },
  { name: 'OriginResponseHTTPLastModified', type: 'string', description: 'origin Last-Modified header (RFC 1123)' },
  { name: 'OriginResponseHeaderReceiveDurationMs', type: 'int', description: 'time until origin response headers arrive' },
  { name: 'OriginResponseStatus', type: 'int', description: 'origin status; 0 = no origin response' },
  { name: 'OriginResponseTime', type: 'int', description: 'origin response time in ns', deprecated: true },
  { name: 'OriginSSLProtocol', type: 'string', description: 'TLS version to origin' },
  { name: 'OriginTCPHandshakeDurationMs', type: 'int', description: 'TCP handshake time (0 if reused)' },
  { name: 'OriginTLSHandshakeDurationMs', type: 'int', description: 'TLS handshake time (0 if reused)' },
  { name: 'ParentRayID', type: 'string', description: 'parent Ray ID for Worker subrequests' },
  { name: 'PayPerCrawlStatus', type: 'string', description: 'Pay Per Crawl outcome' },
  { name: 'RayID', type: 'string', description: 'request ID' },
  { name: 'RequestHeaders', type: 'object', description: 'custom-field request headers, lower-case name → value string' },
  { name: 'ResponseHeaders', type: 'object', description: 'custom-field response headers, lower-case name → value string' },
  { name: 'SecurityAction', type: 'string', description: 'action of the terminating security rule' },
  { name: 'SecurityActions', type: 'string[]', description: 'all security actions (parallel to SecurityRuleIDs/SecuritySources)' },
  { name: 'SecurityRuleDescription', type: 'string', description: 'description of terminating rule' },
  { name: 'SecurityRuleID', type: 'string', description: 'id of terminating rule' },
  { name: 'SecurityRuleIDs', type: 'string[]', description: 'ids of all matched security rules' },
  { name: 'SecuritySources', type: 'string[]', description: 'products that matched (waf, firewallCustom, rateLimit, l7ddos, botManagement, …)' },
  { name: 'SmartRouteColoID', type: 'int', description: 'data center used by Argo Smart Routing' },
  { name: 'UpperTierColoID', type: 'int', description: 'upper-tier data center checked (Tiered Cache)' },
  { name: 'VerifiedBotCategory', type: 'string', description: 'verified bot category' },
  { name: 'WAFAttackScore', type: 'int', description: 'overall WAF attack score' },
  { name: 'WAFFlags', type: 'string', description: 'WAF flags', deprecated: true },
  { name: 'WAFMatchedVar', type: 'string', description: 'last matched variable', deprecated: true },
  { name: 'WAFRCEAttackScore', type: 'int', description: 'WAF RCE score' },
  { name: 'WAFSQLiAttackScore', type: 'int', description: 'WAF SQLi score' },
  { name: 'WAFXSSAttackScore', type: 'int', description: 'WAF XSS score' },
  { name: 'WebAssetsLabelsManaged', type: 'string[]', description: 'Cloudflare-defined labels matched' },
  { name: 'WebAssetsOperationID', type: 'string', description: 'UUID of matched web-asset operation' },
  { name: 'WorkerCPUTime', type: 'int', description: 'Worker CPU time (µs)' },
  { name: 'WorkerScriptName', type: 'string', description: 'Worker script that made the request' },
  { name: 'WorkerStatus', type: 'string', description: 'Worker status' },
  { name: 'WorkerSubrequest', type: 'bool', description: 'request is a Worker subrequest' },
  { name: 'WorkerSubrequestCount', type: 'int', description: 'subrequests issued by the Worker' },
  { name: 'WorkerWallTimeUs', type: 'int', description: 'Worker wall time (µs), includes `waitUntil` work' },
  { name: 'ZoneName', type: 'string', description: 'zone name' },];

function makeDataset(id: string, fields: readonly DatasetField[]): Dataset {
  const byName = new Map(fields.map((f) => [f.name, f] as const));
  return { id, fields, field: (name) => byName.get(name) };
}

export const httpRequests: Dataset = makeDataset('http_requests', httpRequestsFields);

const datasets: ReadonlyMap<string, Dataset> = new Map([[httpRequests.id, httpRequests]]);

/** The dataset with this id, or undefined when logexport does not serve it. */
export function findDataset(id: string): Dataset | undefined {
  return datasets.get(id);
}

/** Ids of every served dataset. */
export const datasetIds: readonly string[] = [...datasets.keys()];
