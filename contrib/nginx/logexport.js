/*
 * logexport's njs module for nginx: makes nginx write each request as one line of logexport's `native`
 * format (the NDJSON event of POST /ingest/zones/{zone}/http_requests), with the raw request and response
 * headers in wire order, every instance kept, so logexport's custom fields capture the headers nginx really
 * received and sent. Timing, status, bytes and client fields come from nginx variables.
 *
 * Use it with logexport.conf (beside this file): in http {},
 *     js_path <checkout>/contrib/nginx/;
 *     include <checkout>/contrib/nginx/logexport.conf;
 * and in a server {}:
 *     access_log /var/log/nginx/logexport.log logexport;
 * Then run logexport with LOGEXPORT_TAIL=native:/var/log/nginx/logexport.log.
 *
 * Written for njs 0.7 (Debian's libnginx-mod-http-js with nginx 1.22): ES5 syntax, no modules but its own.
 */

/** "1700000000.123" (seconds with milliseconds, as $msec and $request_time are) → whole milliseconds. */
function millis(text) {
    var dot = text.indexOf('.');
    if (dot < 0) return Number(text) * 1000;
    var fraction = (text.slice(dot + 1) + '000').slice(0, 3);
    return Number(text.slice(0, dot)) * 1000 + Number(fraction);
}

/** The last number of a list nginx writes for several upstream tries ("502, 200" or "0.010 : 0.020"). */
function lastOf(text) {
    if (!text) return undefined;
    var parts = text.split(/[,:]\s*/);
    var last = parts[parts.length - 1].trim();
    return last === '' || last === '-' ? undefined : last;
}

function integer(text) {
    if (text === undefined || text === null || text === '' || text === '-') return undefined;
    var n = Number(text);
    return isFinite(n) && Math.floor(n) === n && n >= 0 ? n : undefined;
}

/** Header pairs that survive JSON: a value njs holds as a byte string (not UTF-8) is left out. */
function pairs(list) {
    var out = [];
    for (var i = 0; i < list.length; i++) {
        var pair = list[i];
        try {
            JSON.stringify(pair[1]);
            out.push([String(pair[0]), pair[1]]);
        // eslint-disable-next-line @typescript-eslint/no-unused-vars -- njs 0.7 needs the binding
        } catch (e) {
            // Not text: such a value can never be a custom field's value.
        }
    }
    return out;
}

function hasHeader(list, name) {
    for (var i = 0; i < list.length; i++) if (String(list[i][0]).toLowerCase() === name) return true;
    return false;
}

/** The js_set handler of $logexport_event: the whole line. */
function event(r) {
    var v = r.variables;
    var endMs = millis(v.msec);
    var startMs = endMs - millis(v.request_time || '0');
    var uri = v.request_uri || '';
    var query = uri.indexOf('?');
    var e = {
        RayID: (v.request_id || '').slice(0, 16),
        EdgeStartTimestamp: String(startMs) + '000000',
        EdgeEndTimestamp: String(endMs) + '000000',
        ClientIP: v.remote_addr,
        ClientRequestHost: v.host,
        ClientRequestMethod: r.method,
        ClientRequestURI: uri,
        ClientRequestPath: query < 0 ? uri : uri.slice(0, query),
        ClientRequestProtocol: v.server_protocol,
        ClientRequestScheme: v.scheme,
        ClientSSLProtocol: v.ssl_protocol || 'none',
        EdgeResponseStatus: integer(v.status)
    };
    var port = integer(v.remote_port);
    if (port !== undefined) e.ClientSrcPort = port;
    var requestBytes = integer(v.request_length);
    if (requestBytes !== undefined) e.ClientRequestBytes = requestBytes;
    var sent = integer(v.bytes_sent);
    if (sent !== undefined) e.EdgeResponseBytes = sent;
    var body = integer(v.body_bytes_sent);
    if (body !== undefined) e.EdgeResponseBodyBytes = body;
    if (v.ssl_cipher) e.ClientSSLCipher = v.ssl_cipher;
    if (v.http_user_agent) e.ClientRequestUserAgent = v.http_user_agent;
    if (v.http_referer) e.ClientRequestReferer = v.http_referer;
    var originStatus = integer(lastOf(v.upstream_status));
    if (originStatus !== undefined) e.OriginResponseStatus = originStatus;
    var originTime = lastOf(v.upstream_response_time);
    if (originTime !== undefined) e.OriginResponseDurationMs = millis(originTime);
    var originAddr = lastOf(v.upstream_addr);
    if (originAddr !== undefined && originAddr.charAt(0) !== 'u') e.OriginIP = originAddr.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');

    e.RawRequestHeaders = pairs(r.rawHeadersIn);
    // nginx keeps Content-Type and Content-Length apart from the other response headers; they were sent too.
    var out = pairs(r.rawHeadersOut);
    if (v.sent_http_content_length && !hasHeader(out, 'content-length')) out.unshift(['Content-Length', v.sent_http_content_length]);
    if (v.sent_http_content_type && !hasHeader(out, 'content-type')) out.unshift(['Content-Type', v.sent_http_content_type]);
    e.RawResponseHeaders = out;
    return JSON.stringify(e);
}

export default { event: event };
