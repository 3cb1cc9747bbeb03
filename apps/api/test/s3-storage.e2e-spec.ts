import { createHash, randomBytes } from 'node:crypto';
import { connect, createServer } from 'node:net';
import { Readable } from 'node:stream';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { FileStore, FileTooLargeError } from '../src/platform/storage/file-store';
import { S3FileStore, s3Client } from '../src/platform/storage/s3-file-store';
import { S3Options } from '../src/platform/storage/storage-url';
import { loadConfig } from '../src/platform/config/config';
import { TestApp } from './support/harness';
import { startS3 } from './support/s3-server';

const MB = 1024 * 1024;

/** `size` pseudo-random bytes, produced chunk by chunk (never whole in memory). */
function generated(size: number, seed: string): { stream: () => Readable; sha256: string } {
  const chunk = (i: number) => createHash('sha512').update(`${seed}:${i}`).digest();
  const hash = createHash('sha256');
  const block = 64 * 1024;
  const piece = (offset: number) => {
    const out = Buffer.alloc(Math.min(block, size - offset));
    for (let o = 0; o < out.length; o += 64) chunk((offset + o) / 64).copy(out, o);
    return out;
  };
  for (let offset = 0; offset < size; offset += block) hash.update(piece(offset));
  return {
    sha256: hash.digest('hex'),
    stream: () =>
      Readable.from(
        (function* () {
          for (let offset = 0; offset < size; offset += block) yield piece(offset);
        })(),
      ),
  };
}

describe('S3FileStore against a local S3-compatible server', () => {
  let s3: Awaited<ReturnType<typeof startS3>>;
  let client: S3Client;
  let store: FileStore;
  const bucket = 'll-store-test';
  const options = (endpoint: string): S3Options => ({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    partSize: 5 * MB,
    queueSize: 1,
  });

  beforeAll(async () => {
    s3 = await startS3();
    client = s3Client(options(s3.endpoint));
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    store = new S3FileStore(client, { bucket, prefix: 'originals' }, options(s3.endpoint));
  });
  afterAll(async () => {
    client?.destroy();
    await s3?.close();
  });

  const keys = async () => ((await client.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key!).sort();

  it('streams a multipart upload in and out byte for byte, under the prefix', async () => {
    const file = generated(12 * MB + 123, 'big');
    const stored = await store.put(file.stream(), 20 * MB, '7/live');
    expect(stored.size).toBe(12 * MB + 123);
    expect(stored.sha256).toBe(file.sha256);
    expect(stored.key).toMatch(/^7\/live\/[0-9a-f-]{36}$/);
    expect(await keys()).toContain(`originals/${stored.key}`);
    const back = createHash('sha256');
    let size = 0;
    for await (const chunk of store.stream(stored.key)) {
      back.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    expect({ size, sha256: back.digest('hex') }).toEqual({ size: stored.size, sha256: file.sha256 });
    expect(
      createHash('sha256')
        .update(await store.read(stored.key))
        .digest('hex'),
    ).toBe(file.sha256);
    await store.delete(stored.key);
    expect(await keys()).not.toContain(`originals/${stored.key}`);
  });

  it('never holds more than about two parts of a file: it reads the upload only as fast as it sends it', async () => {
    // A counting TCP relay in front of the S3 server: bytes the client has really sent.
    let sent = 0;
    const relay = createServer((client) => {
      const upstream = connect(Number(new URL(s3.endpoint).port), '127.0.0.1');
      client.on('data', (d: Buffer) => (sent += d.length));
      client.pipe(upstream).pipe(client);
      const end = () => (client.destroy(), upstream.destroy());
      client.on('error', end);
      upstream.on('error', end);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    const relayed = options(`http://127.0.0.1:${(relay.address() as { port: number }).port}`);
    const relayClient = s3Client(relayed);
    const relayStore = new S3FileStore(relayClient, { bucket, prefix: 'originals' }, relayed);
    const size = 48 * MB;
    const file = generated(size, 'bounded');
    let read = 0;
    let ahead = 0;
    const source = file.stream();
    source.on('data', (chunk: Buffer) => {
      read += chunk.length;
      ahead = Math.max(ahead, read - sent);
    });
    try {
      const stored = await relayStore.put(source, 64 * MB, 'mem');
      expect(stored.sha256).toBe(file.sha256);
      expect(sent).toBeGreaterThan(size);
      await relayStore.delete(stored.key);
    } finally {
      relayClient.destroy();
      relay.close();
    }
    // partSize 5 MB x (queueSize 1 + the part being filled), plus socket and stream buffers.
    expect(ahead).toBeLessThan(16 * MB);
  });

  it('rejects a file past the limit and keeps nothing of it', async () => {
    const before = await keys();
    const file = generated(11 * MB, 'too-big');
    await expect(store.put(file.stream(), 10 * MB, 'limit')).rejects.toBeInstanceOf(FileTooLargeError);
    const small = generated(3000, 'small');
    await expect(store.put(small.stream(), 2000, 'limit')).rejects.toBeInstanceOf(FileTooLargeError);
    expect(await keys()).toEqual(before);
  });

  it('reports a missing object as a stream error', async () => {
    const stream = store.stream('nope/missing');
    await expect(
      (async () => {
        for await (const _ of stream) void _;
      })(),
    ).rejects.toThrow();
  });
});

describe('the server with STORAGE_URL=s3://bucket/prefix', () => {
  let s3: Awaited<ReturnType<typeof startS3>>;
  let app: TestApp;
  let client: S3Client;

  beforeAll(async () => {
    s3 = await startS3();
    client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    await client.send(new CreateBucketCommand({ Bucket: 'll-originals' }));
    app = await TestApp.start({
      STORAGE_URL: 's3://ll-originals/deploy-a',
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REGION: 'us-east-1',
    });
  });
  afterAll(async () => {
    await app?.close();
    client?.destroy();
    await s3?.close();
  });

  it('stores uploads in the bucket and serves them back from it', async () => {
    const org = await app.newOrg('Bucketed');
    const deal = await app.request('POST', '/v1/deals', {
      key: org.api_key,
      body: { business_name: 'S3 Co', funding_amount_requested: 5 },
    });
    const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(300_000), Buffer.from('\n%%EOF\n')]);
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'statement.pdf');
    const up = await app.request('POST', `/v1/deals/${deal.body.id}/documents`, { key: org.api_key, form });
    expect(up.status).toBe(201);
    const objects = ((await client.send(new ListObjectsV2Command({ Bucket: 'll-originals' }))).Contents ?? []).map((o) => o.Key);
    expect(objects).toEqual([expect.stringMatching(new RegExp(`^deploy-a/${org.organization.id}/live/[0-9a-f-]{36}$`))]);
    const down = await app.request('GET', `/v1/documents/${up.body.id}/download`, { key: org.api_key });
    expect(down.status).toBe(200);
    expect(Buffer.compare(down.body as Buffer, bytes)).toBe(0);
  });
});

describe('STORAGE_URL validation', () => {
  it('names the problems at startup', () => {
    expect(() => loadConfig({ STORAGE_URL: 'http://bucket', AWS_ACCESS_KEY_ID: 'x' })).toThrow(
      /STORAGE_URL must be s3:\/\/bucket[\s\S]*AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together/,
    );
    const config = loadConfig({ STORAGE_URL: 's3://my-bucket/some/prefix/', AWS_ENDPOINT_URL: 'http://127.0.0.1:9000' });
    expect(config.storage).toMatchObject({
      kind: 's3',
      location: { bucket: 'my-bucket', prefix: 'some/prefix' },
      s3: { endpoint: 'http://127.0.0.1:9000', forcePathStyle: true, credentials: null },
    });
    expect(loadConfig({}).storage).toEqual({ kind: 'local' });
  });
});
