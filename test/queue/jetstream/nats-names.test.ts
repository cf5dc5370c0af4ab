import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertSubjectPrefix, durableNameOf, messageIdOf, subjectOf } from '../../../src/queue/jetstream/nats-names.ts';

const zone = '0123456789abcdef0123456789abcdef';
const stream = { zoneId: zone, dataset: 'http_requests' };

describe('the NATS names of the queue', () => {
  it('puts dataset and zone into the subject, under the prefix', () => {
    assert.equal(subjectOf('logexport.events', stream), `logexport.events.http_requests.${zone}`);
  });

  it('names a durable consumer after the job and its stream, so one job name on two zones is two consumers', () => {
    assert.equal(durableNameOf(stream, 'job-7'), `job-7_http_requests_${zone}`);
    assert.notEqual(durableNameOf(stream, 'job'), durableNameOf({ ...stream, zoneId: 'f'.repeat(32) }, 'job'));
  });

  const refused: readonly { readonly what: string; readonly call: () => unknown }[] = [
    { what: 'a zone id with a dot', call: () => subjectOf('p', { ...stream, zoneId: 'a.b' }) },
    { what: 'a dataset with a wildcard', call: () => subjectOf('p', { ...stream, dataset: 'http_*' }) },
    { what: 'a consumer name with a space', call: () => durableNameOf(stream, 'job 1') },
    { what: 'a consumer name with a greater-than sign', call: () => durableNameOf(stream, 'job>') },
    { what: 'an empty zone id', call: () => subjectOf('p', { ...stream, zoneId: '' }) },
    { what: 'a prefix with an empty token', call: () => assertSubjectPrefix('logexport..events') },
    { what: 'a prefix ending in a wildcard', call: () => assertSubjectPrefix('logexport.>') },
  ];
  for (const { what, call } of refused) {
    it(`refuses ${what}`, () => assert.throws(call, /NATS/));
  }

  it('derives message ids from stream, dedupe key, chunk and part, the same on every node', () => {
    const id = messageIdOf(stream, 'request-digest', 3, 0);
    assert.match(id, /^[0-9a-f]{40}-3$/);
    assert.equal(messageIdOf(stream, 'request-digest', 3, 0), id);
    assert.equal(messageIdOf(stream, 'request-digest', 3, 2), `${id}.2`);
    assert.notEqual(messageIdOf({ ...stream, zoneId: 'f'.repeat(32) }, 'request-digest', 3, 0), id);
    assert.notEqual(messageIdOf(stream, 'other-digest', 3, 0), id);
  });
});
