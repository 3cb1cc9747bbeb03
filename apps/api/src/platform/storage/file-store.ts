import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface StoredFile {
  key: string;
  size: number;
  sha256: string;
  /** The first bytes, for content sniffing. */
  head: Buffer;
}

export class FileTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`File is larger than ${limit} bytes`);
  }
}

/**
 * Port for original uploads, stored unmodified. Local disk under DATA_DIR by default; an
 * S3-compatible bucket with STORAGE_URL=s3://bucket/prefix (s3-file-store.ts).
 */
export abstract class FileStore {
  /** Streams `source` into the store; rejects (and keeps nothing) past `maxBytes`. */
  abstract put(source: Readable, maxBytes: number, prefix: string): Promise<StoredFile>;
  abstract read(key: string): Promise<Buffer>;
  abstract stream(key: string): Readable;
  abstract delete(key: string): Promise<void>;
}

/** Passes bytes through while counting, hashing and keeping the first 16; fails past `maxBytes`. */
export class SizeMeter extends Transform {
  private readonly hash = createHash('sha256');
  private size = 0;
  private readonly headChunks: Buffer[] = [];
  private headLength = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return done(new FileTooLargeError(this.maxBytes));
    this.hash.update(chunk);
    if (this.headLength < 16) {
      this.headChunks.push(chunk.subarray(0, 16 - this.headLength));
      this.headLength += Math.min(chunk.length, 16 - this.headLength);
    }
    done(null, chunk);
  }

  result(): Omit<StoredFile, 'key'> {
    return { size: this.size, sha256: this.hash.digest('hex'), head: Buffer.concat(this.headChunks) };
  }
}

export class LocalFileStore extends FileStore {
  constructor(private readonly root: string) {
    super();
  }

  async put(source: Readable, maxBytes: number, prefix: string): Promise<StoredFile> {
    const key = `${prefix}/${randomUUID()}`;
    const path = this.path(key);
    const partial = `${path}.partial`;
    await mkdir(dirname(path), { recursive: true });
    const meter = new SizeMeter(maxBytes);
    const out = createWriteStream(partial);
    try {
      await pipeline(source, meter, out);
      await rename(partial, path);
    } catch (err) {
      // The write stream opens its file asynchronously: when the upload fails before that open
      // completes, the file appears after the failure. Wait for the stream to close, then remove.
      if (!out.closed) await new Promise<void>((done) => out.once('close', () => done()));
      await rm(partial, { force: true });
      // Drain what the client still sends so the connection can answer cleanly.
      source.resume();
      throw err;
    }
    return { key, ...meter.result() };
  }

  read(key: string): Promise<Buffer> {
    return readFile(this.path(key));
  }

  stream(key: string): Readable {
    return createReadStream(this.path(key));
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async size(key: string): Promise<number> {
    return (await stat(this.path(key))).size;
  }

  private path(key: string): string {
    const full = resolve(this.root, key);
    if (!full.startsWith(resolve(this.root) + sep)) throw new Error(`Invalid storage key ${key}`);
    return full;
  }
}

export function localFileStore(dataDir: string): LocalFileStore {
  return new LocalFileStore(join(dataDir, 'files'));
}

/** Content sniffing by magic bytes: the name and declared type are not trusted. */
export function sniffMime(head: Buffer): 'application/pdf' | 'image/png' | 'image/jpeg' | 'image/tiff' | null {
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (
    head.length >= 4 &&
    ((head[0] === 0x49 && head[1] === 0x49 && head[2] === 0x2a && head[3] === 0x00) ||
      (head[0] === 0x4d && head[1] === 0x4d && head[2] === 0x00 && head[3] === 0x2a))
  )
    return 'image/tiff';
  return null;
}
