import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  destinationIdentity,
  maskDestinationConf,
  maxDestinationConfLength,
  ownershipRequired,
  parseDestinationConf,
  sameDestination,
} from '../../../src/domain/jobs/destination-conf.ts';
import type { DestinationSpec } from '../../../src/domain/jobs/destination-spec.ts';

const account = '0123456789abcdef0123456789abcdef';

function parsed(conf: string): DestinationSpec {
  const result = parseDestinationConf(conf);
  if (!result.ok) assert.fail(`expected ${conf} to parse, got ${JSON.stringify(result.error)}`);
  return result.value;
}

function problems(conf: unknown): string {
  const result = parseDestinationConf(conf);
  if (result.ok) assert.fail(`expected ${String(conf)} to be refused, got ${JSON.stringify(result.value)}`);
  for (const detail of result.error) assert.equal(detail.pointer, '/destination_conf');
  return result.error.map((d) => d.message).join(' | ');
}

describe('parseDestinationConf accepts every supported form', () => {
  const valid: readonly { conf: string; spec: DestinationSpec }[] = [
    { conf: 'file:///acme/logs', spec: { kind: 'file', path: 'acme/logs' } },
    { conf: 'file:///acme/logs/', spec: { kind: 'file', path: 'acme/logs' } },
    { conf: 'file:///acme/logs/{DATE}', spec: { kind: 'file', path: 'acme/logs/{DATE}' } },
    { conf: 'file:///acme%20corp/logs', spec: { kind: 'file', path: 'acme corp/logs' } },
    { conf: 'file:///', spec: { kind: 'file', path: '' } },
    {
      conf: 's3://my-bucket/logs/{DATE}?region=us-east-1',
      spec: { kind: 's3', bucket: 'my-bucket', path: 'logs/{DATE}', region: 'us-east-1', endpoint: undefined, credentials: undefined, sse: undefined },
    },
    {
      conf: 's3://my-bucket?region=eu-west-1&sse=AES256',
      spec: { kind: 's3', bucket: 'my-bucket', path: '', region: 'eu-west-1', endpoint: undefined, credentials: undefined, sse: 'AES256' },
    },
    {
      conf: 's3://logs.example.com/a/b?region=us-east-1&endpoint=http://127.0.0.1:9000&access-key-id=AKID&secret-access-key=ab%2Bcd/ef',
      spec: {
        kind: 's3',
        bucket: 'logs.example.com',
        path: 'a/b',
        region: 'us-east-1',
        endpoint: 'http://127.0.0.1:9000',
        credentials: { accessKeyId: 'AKID', secretAccessKey: 'ab+cd/ef' },
        sse: undefined,
      },
    },
    {
      conf: 's3://bucket/x?region=auto&endpoint=storage.example.com',
      spec: { kind: 's3', bucket: 'bucket', path: 'x', region: 'auto', endpoint: 'https://storage.example.com', credentials: undefined, sse: undefined },
    },
    {
      conf: `r2://my-logs/http/{DATE}?account-id=${account.toUpperCase()}&access-key-id=id&secret-access-key=secret`,
      spec: {
        kind: 'r2',
        bucket: 'my-logs',
        path: 'http/{DATE}',
        accountId: account,
        endpoint: `https://${account}.r2.cloudflarestorage.com`,
        region: 'auto',
        credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
      },
    },
    {
      conf: 'https://logs.example.com/ingest?source=cf&header_Authorization=Bearer%20abc&header_X-Api-Key=k1',
      spec: {
        kind: 'http',
        url: 'https://logs.example.com/ingest?source=cf',
        headers: [
          { name: 'Authorization', value: 'Bearer abc' },
          { name: 'X-Api-Key', value: 'k1' },
        ],
      },
    },
    {
      conf: 'http://127.0.0.1:8080/?header_Authorization=Splunk+token',
      spec: { kind: 'http', url: 'http://127.0.0.1:8080/', headers: [{ name: 'Authorization', value: 'Splunk token' }] },
    },
    {
      conf: 'https://example.com/a?ddtags=env:prod,team:x&service=web',
      spec: { kind: 'http', url: 'https://example.com/a?ddtags=env:prod,team:x&service=web', headers: [] },
    },
  ];
  for (const { conf, spec } of valid) {
    it(`parses ${conf}`, () => {
      assert.deepEqual(parsed(conf), spec);
    });
  }
});

describe('parseDestinationConf refuses what it cannot deliver to, saying why', () => {
  const invalid: readonly { conf: unknown; says: RegExp }[] = [
    { conf: 42, says: /must be a string/ },
    { conf: '', says: /must not be empty/ },
    { conf: `file:///${'a'.repeat(maxDestinationConfLength)}`, says: /limit is 4096/ },
    { conf: 'logs/acme', says: /must be a URL/ },
    { conf: 'gs://bucket/logs', says: /'gs' is not supported; supported schemes: file, s3, r2, https, http/ },
    { conf: 'azure://container/x?sv=1', says: /'azure' is not supported/ },
    { conf: 'datadog://intake.example.com?header_DD-API-KEY=x', says: /'datadog' is not supported/ },
    { conf: 'splunk://h:8088/services/collector/raw', says: /'splunk' is not supported/ },
    { conf: 'file:///acme/../etc', says: /must not contain '\.\.' segments/ },
    { conf: 'file:///acme/%2e%2e/etc', says: /'\.\.' segments/ },
    { conf: 'file:///acme/./x', says: /'\.' segments/ },
    { conf: 'file:///acme/%00x', says: /NUL or control/ },
    { conf: 'file:///acme\\logs', says: /backslash/ },
    { conf: 'file:///acme/%5Clogs', says: /backslash/ },
    { conf: 'file:///acme//logs', says: /empty segment/ },
    { conf: 'file:///acme/a%2Fb', says: /encoded slash/ },
    { conf: 'file://host/acme', says: /take no host/ },
    { conf: 'file:///acme?x=1', says: /no query parameters/ },
    { conf: 'file:///acme/{date}', says: /\{DATE\} and no other/ },
    { conf: 'file:///acme/%zz', says: /invalid percent-encoding/ },
    { conf: `file:///${'a'.repeat(256)}`, says: /longer than 255 bytes/ },
    { conf: 'file:///acme logs', says: /space or control character at position 13/ },
    { conf: 'file:///acme#x', says: /'#'/ },
    { conf: 's3://my-bucket/logs', says: /need region=/ },
    { conf: 's3://my-bucket/logs?region=', says: /need region=/ },
    { conf: 's3://My_Bucket/logs?region=us-east-1', says: /not a valid S3 bucket name: only lowercase/ },
    { conf: 's3://ab/logs?region=us-east-1', says: /3 to 63 characters/ },
    { conf: 's3://-bucket/logs?region=us-east-1', says: /start and end with a letter or digit/ },
    { conf: 's3://a..b/logs?region=us-east-1', says: /two adjacent dots/ },
    { conf: 's3://192.168.1.1/logs?region=us-east-1', says: /look like an IP address/ },
    { conf: 's3://xn--bucket/logs?region=us-east-1', says: /xn--/ },
    { conf: 's3://bucket-s3alias/logs?region=us-east-1', says: /-s3alias/ },
    { conf: 's3://bucket/logs?region=us-east-1&acl=private', says: /unknown s3 parameter 'acl'; allowed: region, endpoint, access-key-id, secret-access-key, sse/ },
    { conf: 's3://bucket/logs?region=us-east-1&region=eu-west-1', says: /'region' is given more than once/ },
    { conf: 's3://bucket/logs?region=us-east-1&access-key-id=AKID', says: /must be given together/ },
    { conf: 's3://bucket/logs?region=us-east-1&secret-access-key=s', says: /must be given together/ },
    { conf: 's3://bucket/logs?region=us-east-1&access-key-id=AKID&secret-access-key=ab+cd', says: /percent-encoded as %2B/ },
    { conf: 's3://bucket/logs?region=us-east-1&access-key-id=AKID&secret-access-key=REDACTED', says: /masked placeholder/ },
    { conf: 's3://bucket/logs?region=us-east-1&endpoint=ftp://host', says: /http or https/ },
    { conf: 's3://bucket/logs?region=us-east-1&endpoint=https://host/bucket', says: /just scheme:\/\/host/ },
    { conf: 's3://bucket/logs?region=us-east-1&sse=aws:kms', says: /sse must be AES256/ },
    { conf: 's3://bucket/logs?region=US%20EAST', says: /not a valid region name/ },
    { conf: 's3://bucket/../x?region=us-east-1', says: /'\.\.' segments/ },
    { conf: 'r2://my-logs/x?access-key-id=a&secret-access-key=b', says: /need account-id/ },
    { conf: 'r2://my-logs/x?account-id=123&access-key-id=a&secret-access-key=b', says: /32 hexadecimal/ },
    { conf: `r2://my-logs/x?account-id=${account}`, says: /access-key-id and secret-access-key are required/ },
    { conf: `r2://my.logs/x?account-id=${account}&access-key-id=a&secret-access-key=b`, says: /not a valid R2 bucket name/ },
    { conf: `r2://my-logs/x?account-id=${account}&access-key-id=a&secret-access-key=b&region=auto`, says: /unknown r2 parameter 'region'/ },
    { conf: 'https://', says: /not a valid http\(s\) URL/ },
    { conf: 'https://user:pw@example.com/x', says: /not in the URL/ },
    { conf: 'https://example.com/x?header_=v', says: /needs a header name/ },
    { conf: 'https://example.com/x?header_Bad%20Name=v', says: /not a valid HTTP token/ },
    { conf: 'https://example.com/x?header_Content-Length=5', says: /cannot be given/ },
    { conf: 'https://example.com/x?header_Host=evil', says: /cannot be given/ },
    { conf: 'https://example.com/x?header_X-A=1%0d%0aX-B:2', says: /control characters or line breaks/ },
    { conf: 'https://example.com/x?header_X-A=1&header_x-a=2', says: /more than once/ },
    { conf: 'https://example.com/x?header_Authorization=REDACTED', says: /masked placeholder/ },
  ];
  for (const { conf, says } of invalid) {
    it(`refuses ${String(conf).slice(0, 90)}`, () => {
      assert.match(problems(conf), says);
    });
  }

  it('lists every problem of one conf, not just the first', () => {
    const text = problems('s3://My_Bucket/logs?acl=x&access-key-id=a');
    assert.match(text, /bucket name/);
    assert.match(text, /unknown s3 parameter 'acl'/);
    assert.match(text, /need region=/);
    assert.match(text, /must be given together/);
  });

  it('never throws, whatever string it is given', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string().map((s) => `s3://${s}`), fc.string().map((s) => `file:///${s}`)), (conf) => {
        const result = parseDestinationConf(conf);
        assert.equal(typeof result.ok, 'boolean');
      }),
    );
  });

  it('never yields a file path that climbs out of the export root', () => {
    const segment = fc.constantFrom('a', '..', '.', '%2e%2e', '%2E.', 'b', '', '{DATE}', '%00', '\\');
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (segments) => {
        const result = parseDestinationConf(`file:///${segments.join('/')}`);
        if (result.ok && result.value.kind === 'file') {
          for (const part of result.value.path.split('/')) {
            assert.ok(part !== '..' && part !== '.' && !part.includes('\0') && !part.includes('\\'));
          }
        }
      }),
    );
  });
});

describe('ownershipRequired follows the destination table', () => {
  const table: readonly [string, boolean][] = [
    ['file:///acme/logs', true],
    ['s3://bucket/logs?region=us-east-1', true],
    ['s3://bucket/logs?region=us-east-1&access-key-id=a&secret-access-key=b', false],
    [`r2://bucket/logs?account-id=${account}&access-key-id=a&secret-access-key=b`, false],
    ['https://example.com/ingest', false],
    ['http://example.com/ingest', false],
  ];
  for (const [conf, required] of table) {
    it(`${required ? 'requires' : 'does not require'} a challenge for ${conf}`, () => {
      assert.equal(ownershipRequired(parsed(conf)), required);
    });
  }
});

describe('maskDestinationConf hides secrets in responses', () => {
  const table: readonly [string, string][] = [
    ['file:///acme/logs', 'file:///acme/logs'],
    ['s3://b/logs?region=us-east-1', 's3://b/logs?region=us-east-1'],
    [
      's3://bucket/logs?region=us-east-1&access-key-id=AKID&secret-access-key=s3cr%2Bt',
      's3://bucket/logs?region=us-east-1&access-key-id=AKID&secret-access-key=REDACTED',
    ],
    [
      `r2://b/x?account-id=${account}&access-key-id=id&secret-access-key=sec`,
      `r2://b/x?account-id=${account}&access-key-id=id&secret-access-key=REDACTED`,
    ],
    [
      'https://example.com/x?source=cf&header_Authorization=Bearer%20t&header_X-Team=blue',
      'https://example.com/x?source=cf&header_Authorization=REDACTED&header_X-Team=REDACTED',
    ],
    ['https://log-api.newrelic.com/log/v1?Api-Key=abc&format=cloudflare', 'https://log-api.newrelic.com/log/v1?Api-Key=REDACTED&format=cloudflare'],
    ['https://example.com/x?token=t&sig=s&code=c&password=p', 'https://example.com/x?token=REDACTED&sig=REDACTED&code=REDACTED&password=REDACTED'],
    ['https://user:pw@example.com/x', 'https://user:REDACTED@example.com/x'],
    ['not a url?secret-access-key=x', 'not a url?secret-access-key=REDACTED'],
  ];
  for (const [conf, masked] of table) {
    it(`shows ${conf} as ${masked}`, () => {
      assert.equal(maskDestinationConf(conf), masked);
    });
  }

  it('is idempotent, so a masked conf sent back can be recognised as unchanged', () => {
    const conf = 'https://example.com/x?header_Authorization=Bearer%20t';
    assert.equal(maskDestinationConf(maskDestinationConf(conf)), maskDestinationConf(conf));
  });

  it('never lets a secret value through, whatever it is', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9%+/]{6,30}$/), (secret) => {
        const masked = maskDestinationConf(`s3://bucket/p?region=us-east-1&access-key-id=AKID&secret-access-key=${secret}`);
        assert.ok(!masked.includes(secret) || 's3://bucket/p?region=us-east-1&access-key-id=AKID'.includes(secret));
        assert.ok(masked.endsWith('secret-access-key=REDACTED'));
      }),
    );
  });
});

describe('destinationIdentity names where a destination writes, without secrets', () => {
  it('treats two confs that differ only in credentials or headers as the same destination', () => {
    assert.ok(sameDestination(parsed('s3://b-1/x?region=us-east-1&access-key-id=a&secret-access-key=b'), parsed('s3://b-1/x?region=us-east-1')));
    assert.ok(sameDestination(parsed('https://e.com/x?header_A=1'), parsed('https://e.com/x?header_A=2')));
    assert.ok(!sameDestination(parsed('s3://b-1/x?region=us-east-1'), parsed('s3://b-1/y?region=us-east-1')));
    assert.ok(!sameDestination(parsed('s3://b-1/x?region=us-east-1'), parsed('s3://b-1/x?region=us-east-1&endpoint=https://minio.local')));
  });

  it('does not contain a secret', () => {
    const identity = destinationIdentity(parsed(`r2://b-1/x?account-id=${account}&access-key-id=id&secret-access-key=TOPSECRET`));
    assert.ok(!identity.includes('TOPSECRET'));
  });
});
