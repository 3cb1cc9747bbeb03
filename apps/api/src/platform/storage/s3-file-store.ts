import { randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { FileStore, SizeMeter, StoredFile } from './file-store';
import { S3Location, S3Options } from './storage-url';

export function s3Client(options: S3Options): S3Client {
  return new S3Client({
    region: options.region,
    endpoint: options.endpoint ?? undefined,
    forcePathStyle: options.forcePathStyle,
    credentials: options.credentials ?? undefined,
    // Checksums only where the API requires them: S3-compatible servers differ in what they accept.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/**
 * Originals in an S3-compatible bucket (AWS S3, MinIO, R2), for deployments with more than one
 * machine. Uploads stream through a size meter into a multipart upload: at most
 * `partSize x queueSize` bytes of a file are in memory at once, whatever its size. Reads stream
 * from GetObject.
 */
export class S3FileStore extends FileStore {
  constructor(
    private readonly client: S3Client,
    private readonly location: S3Location,
    private readonly options: Pick<S3Options, 'partSize' | 'queueSize'>,
  ) {
    super();
  }

  private objectKey(key: string): string {
    if (!/^[A-Za-z0-9/_.-]+$/.test(key) || key.split('/').includes('..')) throw new Error(`Invalid storage key ${key}`);
    return this.location.prefix ? `${this.location.prefix}/${key}` : key;
  }

  async put(source: Readable, maxBytes: number, prefix: string): Promise<StoredFile> {
    const key = `${prefix}/${randomUUID()}`;
    const meter = new SizeMeter(maxBytes);
    const body = new PassThrough();
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.location.bucket, Key: this.objectKey(key), Body: body },
      partSize: this.options.partSize,
      queueSize: this.options.queueSize,
      leavePartsOnError: false,
    });
    const uploaded = upload.done();
    // If the upload fails first, stop feeding it (the pipeline then fails too).
    uploaded.catch((err: Error) => body.destroy(err));
    try {
      await pipeline(source, meter, body);
      await uploaded;
    } catch (err) {
      await upload.abort().catch(() => undefined);
      await uploaded.catch(() => undefined);
      await this.delete(key).catch(() => undefined);
      source.resume();
      throw err;
    }
    return { key, ...meter.result() };
  }

  async read(key: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.stream(key)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  stream(key: string): Readable {
    const out = new PassThrough();
    this.client
      .send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }))
      .then((res) => {
        const body = res.Body as Readable | undefined;
        if (!body) throw new Error(`Object ${key} has no body`);
        return pipeline(body, out);
      })
      .catch((err: Error) => out.destroy(err));
    return out;
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
  }

  async size(key: string): Promise<number> {
    const head = await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey(key) }));
    return head.ContentLength ?? 0;
  }

  /** Readiness: the bucket answers. */
  async ping(): Promise<void> {
    await this.client
      .send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.objectKey('.ping') }))
      .catch((err: Error & { name?: string; $metadata?: { httpStatusCode?: number } }) => {
        if (err.$metadata?.httpStatusCode === 404 || err.name === 'NotFound') return;
        throw err;
      });
  }
}
