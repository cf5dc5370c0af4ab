/**
 * Retained segments in an S3-compatible bucket (`LOGEXPORT_RETENTION_URL=s3://…`): the node that consumed
 * the events puts the segment, any node lists and reads it. A segment being read is downloaded into the
 * node's work directory first (DuckDB reads local files; its S3 support would need an extension download).
 */
import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Location } from '../core/s3-url.ts';
import { zonePathComponent, type OpenedSegment, type SegmentEntry, type SegmentStore } from './segment-store.ts';

function contentTypeOf(key: string): string {
  if (key.endsWith('.parquet')) return 'application/vnd.apache.parquet';
  if (key.endsWith('.zst')) return 'application/zstd';
  return key.endsWith('.json') ? 'application/json' : 'application/octet-stream';
}

export class S3SegmentStore implements SegmentStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly workDir: string;

  constructor(spec: S3Location, workDir: string) {
    const customEndpoint = spec.endpoint !== undefined;
    this.client = new S3Client({
      region: spec.region,
      forcePathStyle: customEndpoint || spec.bucket.includes('.'),
      ...(spec.endpoint === undefined ? {} : { endpoint: spec.endpoint }),
      ...(spec.credentials === undefined ? {} : { credentials: { ...spec.credentials } }),
      ...(customEndpoint ? { requestChecksumCalculation: 'WHEN_REQUIRED' as const, responseChecksumValidation: 'WHEN_REQUIRED' as const } : {}),
    });
    this.bucket = spec.bucket;
    this.prefix = spec.path === '' ? '' : `${spec.path.replace(/\/+$/, '')}/`;
    this.workDir = workDir;
  }

  async put(key: string, localPath: string): Promise<void> {
    const stat = await fs.stat(localPath);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, Body: createReadStream(localPath), ContentLength: stat.size, ContentType: contentTypeOf(key) }),
    );
    await fs.rm(localPath, { force: true });
  }

  async list(prefix: string): Promise<readonly SegmentEntry[]> {
    const entries: SegmentEntry[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + prefix, ContinuationToken: token }));
      for (const item of page.Contents ?? []) if (item.Key !== undefined) entries.push({ key: item.Key.slice(this.prefix.length), bytes: item.Size ?? 0 });
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async listKeys(prefix: string): Promise<readonly string[]> {
    return (await this.list(prefix)).map((entry) => entry.key);
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((k) => ({ Key: this.prefix + k })), Quiet: true } }));
    }
  }

  async listPartitions(prefix: string): Promise<readonly string[]> {
    const names: string[] = [];
    let token: string | undefined;
    let objects = 0;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + prefix, Delimiter: '/', ContinuationToken: token }));
      for (const common of page.CommonPrefixes ?? []) {
        const name = common.Prefix?.slice((this.prefix + prefix).length).replace(/\/$/, '');
        if (name !== undefined && name !== '') names.push(name);
      }
      objects += page.Contents?.length ?? 0;
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    if (names.length > 0 || objects > 0) return names.sort();
    // Nothing at all: an empty prefix, or a server that answers no common prefixes for nested keys (some
    // S3-compatible ones): the partitions are read from the keys themselves.
    const found = new Set<string>();
    for (const entry of await this.list(prefix)) {
      const rest = entry.key.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash > 0) found.add(rest.slice(0, slash));
    }
    return [...found].sort();
  }

  zoneDirectory(zoneId: string): string {
    return path.join(this.workDir, zonePathComponent(zoneId)) + path.sep;
  }

  async open(key: string): Promise<OpenedSegment> {
    // Each zone's downloads have a directory of their own, so a zone's Log Explorer sandbox reads only its own.
    const dir = this.zoneDirectory(key.slice(0, key.indexOf('/')));
    await fs.mkdir(dir, { recursive: true });
    // The key's suffix is kept: DuckDB tells a hot segment's compression from it.
    const local = path.join(dir, `read-${randomBytes(6).toString('hex')}-${path.posix.basename(key)}`);
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
    if (!(object.Body instanceof Readable)) throw new Error(`the segment ${key} came back without a body`);
    await pipeline(object.Body, createWriteStream(local));
    return { path: local, release: () => fs.rm(local, { force: true }) };
  }

  async deletePrefix(prefix: string): Promise<void> {
    await this.delete((await this.list(prefix)).map((e) => e.key));
  }

  close(): Promise<void> {
    this.client.destroy();
    return Promise.resolve();
  }
}
