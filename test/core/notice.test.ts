import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { errorCatalogue } from '../../src/core/app-error.ts';
import { noEnabledJobNotice, noticeCatalogue } from '../../src/core/notice.ts';

function documentedNotices(): Map<string, number> {
  const text = fs.readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('## Notices'));
  const rows = new Map<string, number>();
  for (const line of section.split('\n')) {
    const m = /^\| (\d+) \| (\w+) \|/.exec(line);
    if (m) rows.set(m[2] ?? '', Number(m[1]));
  }
  return rows;
}

describe('the notices', () => {
  it('are exactly the ones docs/errors.md lists under Notices, with the same codes', () => {
    assert.deepEqual(documentedNotices(), new Map(Object.entries(noticeCatalogue).map(([name, n]) => [name, n.code])));
  });

  it('use codes no error uses', () => {
    const errorCodes = new Set<number>(Object.values(errorCatalogue).map((e) => e.code));
    for (const [name, n] of Object.entries(noticeCatalogue)) assert.ok(!errorCodes.has(n.code), name);
  });

  it('say how many events were dropped, in the singular for one, naming the zone when asked', () => {
    assert.match(noEnabledJobNotice(3).message, /^no enabled job exports this zone's events: 3 events were checked and dropped \(/);
    assert.match(noEnabledJobNotice(1).message, /^no enabled job exports this zone's events: 1 event was checked and dropped \(/);
    assert.match(noEnabledJobNotice(1, 'log records', 'example.com').message, /^no enabled job exports the events of example\.com: 1 log record was checked and dropped \(/);
    assert.equal(noEnabledJobNotice(2).code, 12100);
  });
});
