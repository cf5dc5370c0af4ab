import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { headers } from '@nats-io/transport-node';
import { parseDelivery, recordCountOf, recordsHeader, storedAtMs } from '../../../src/queue/jetstream/message-delivery.ts';

const data = new TextEncoder().encode('{"a":1}\n{"a":2}\n');

describe('a delivery of a stored message', () => {
  it('reads seq, delivery count and the server time from the short form of the reply subject', () => {
    const delivery = parseDelivery({ reply: '$JS.ACK.LOGEXPORT.job-1_http_requests_z.2.1042.77.1795305441405747763.5', data, headers: undefined });
    assert.deepEqual(delivery && { ...delivery, payload: undefined }, {
      seq: 1042,
      deliveryCount: 2,
      appendedAtMs: 1795305441405,
      reply: '$JS.ACK.LOGEXPORT.job-1_http_requests_z.2.1042.77.1795305441405747763.5',
      count: 2,
      payload: undefined,
    });
  });

  it('reads the long form with domain, account hash and a random token', () => {
    const delivery = parseDelivery({ reply: '$JS.ACK.hub.ACCHASH.LOGEXPORT.job-1.1.9.9.1795305441405747763.0.rAnD0m', data, headers: undefined });
    assert.equal(delivery?.seq, 9);
    assert.equal(delivery?.appendedAtMs, 1795305441405);
  });

  const notDeliveries = ['', '_INBOX.abc', '$JS.ACK.too.short', '$JS.ACK.S.C.1.x.1.1795305441405747763.0', '$JS.ACK.S.C.1.0.1.1795305441405747763.0'];
  for (const reply of notDeliveries) {
    it(`is not read from the reply subject '${reply}'`, () => assert.equal(parseDelivery({ reply, data, headers: undefined }), undefined));
  }

  it('takes the record count from its header, or counts lines when the header is missing', () => {
    const h = headers();
    h.set(recordsHeader, '7');
    assert.equal(recordCountOf(h, data), 7);
    assert.equal(recordCountOf(undefined, data), 2);
  });

  const times: readonly (readonly [string, number])[] = [
    ['2026-11-21T23:57:21.404928435Z', Date.UTC(2026, 10, 21, 23, 57, 21, 404)],
    ['2026-11-21T23:57:21.4Z', Date.UTC(2026, 10, 21, 23, 57, 21, 400)],
    ['2026-11-21T23:57:21Z', Date.UTC(2026, 10, 21, 23, 57, 21, 0)],
    ['2026-11-21T23:57:21.999999999+01:00', Date.UTC(2026, 10, 21, 22, 57, 21, 999)],
  ];
  for (const [text, ms] of times) {
    it(`cuts the stored time ${text} to the millisecond`, () => assert.equal(storedAtMs(text), ms));
  }
});
