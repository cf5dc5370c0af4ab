/**
 * Ingest admission by the bytes that arrive: a declared body holds its length (up to the body limit) from
 * the start; a chunked one holds what has arrived; a request is refused only beside others that hold bytes,
 * and what a request held is given back once.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/core/app-error.ts';
import { IngestAdmission } from '../../src/api/ingest-admission.ts';

const budget = 1000;
const limit = 950;

function refusal(thrown: () => void): AppError {
  try {
    thrown();
  } catch (error) {
    assert.ok(error instanceof AppError);
    return error;
  }
  assert.fail('the request was admitted');
}

describe('ingest admission', () => {
  it('holds a declared body for its length, capped at the body limit, and refuses one that does not fit beside it with 429 and Retry-After', () => {
    const admission = new IngestAdmission<object>(budget, limit);
    const first = {};
    admission.admit(first, '5000');
    assert.equal(admission.heldBytes(), limit);
    const error = refusal(() => admission.admit({}, '500'));
    assert.equal(error.status, 429);
    assert.equal(error.retryAfterSeconds, 1);
    admission.admit({}, '50');
    assert.equal(admission.heldBytes(), 1000);
  });

  it('admits a chunked body holding nothing, and counts it as its bytes arrive', () => {
    const admission = new IngestAdmission<object>(budget, limit);
    const declared = {};
    admission.admit(declared, '900');
    const chunked = Array.from({ length: 50 }, () => ({}));
    for (const request of chunked) admission.admit(request, undefined);
    assert.equal(admission.heldBytes(), 900);
    assert.equal(admission.received(chunked[0] as object, 60), undefined);
    assert.equal(admission.heldBytes(), 960);
  });

  it('refuses a chunked body once its bytes take the total over the budget beside others, never when it is alone', () => {
    const alone = new IngestAdmission<object>(budget, limit);
    const big = {};
    alone.admit(big, undefined);
    for (let i = 0; i < 30; i++) assert.equal(alone.received(big, 100), undefined, 'alone, however large');
    const beside = new IngestAdmission<object>(budget, limit);
    beside.admit({}, '900');
    const chunked = {};
    beside.admit(chunked, undefined);
    assert.equal(beside.received(chunked, 100), undefined);
    assert.equal(beside.received(chunked, 1)?.status, 429);
  });

  it('gives back what a request held, once', () => {
    const admission = new IngestAdmission<object>(budget, limit);
    const declared = {};
    const chunked = {};
    admission.admit(declared, '300');
    admission.admit(chunked, undefined);
    admission.received(chunked, 200);
    admission.release(declared);
    admission.release(declared);
    assert.equal(admission.heldBytes(), 200);
    admission.release(chunked);
    assert.equal(admission.heldBytes(), 0);
  });
});
