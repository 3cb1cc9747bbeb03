/**
 * What an upload accepts: bytes (Buffer, Uint8Array, ArrayBuffer), a Blob or File, a file path
 * (Node.js: read from disk as the request is sent, never held in memory), or a stream (a web
 * ReadableStream or a Node.js Readable), which is read into memory up to `maxBytes` so that a
 * retry can send it again.
 */
export type UploadSource = Blob | ArrayBuffer | ArrayBufferView | string | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface UploadFile {
  file: UploadSource;
  /** File name sent to the server; default: the path's base name, a File's name, or `document.pdf`. */
  filename?: string;
  /** Media type; default: the Blob's type, else from the file name's extension. */
  contentType?: string;
}

/** Streams are buffered so retries can resend them; the API accepts at most 25 MB per file. */
export const DEFAULT_MAX_STREAM_BYTES = 64 * 1024 * 1024;

const TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  tif: 'image/tiff',
  tiff: 'image/tiff',
};

function typeOf(filename: string): string {
  return TYPES[filename.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream';
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || 'document.pdf';
}

function isAsyncIterable(x: unknown): x is AsyncIterable<Uint8Array> {
  return typeof x === 'object' && x !== null && typeof (x as AsyncIterable<Uint8Array>)[Symbol.asyncIterator] === 'function';
}

async function collect(chunks: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Blob> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
    size += bytes.byteLength;
    if (size > maxBytes) throw new RangeError(`Ledgerlens: upload stream exceeds ${maxBytes} bytes`);
    parts.push(bytes);
  }
  // (the DOM typings want ArrayBuffer-backed parts; these are, a SharedArrayBuffer never reaches here)
  return new Blob(parts as unknown as ConstructorParameters<typeof Blob>[0]);
}

async function* readWebStream(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** The upload as a named Blob (a File), ready for FormData. */
export async function toFile(input: UploadSource | UploadFile, maxStreamBytes = DEFAULT_MAX_STREAM_BYTES): Promise<File> {
  const spec: UploadFile = isUploadFile(input) ? input : { file: input };
  const source = spec.file;
  let blob: Blob;
  let name = spec.filename;
  if (typeof source === 'string') {
    // Node.js only: a Blob backed by the file, read while the request is sent
    const fs: { openAsBlob?: (path: string, options?: { type?: string }) => Promise<Blob> } = await import('node:fs');
    if (typeof fs.openAsBlob !== 'function') throw new TypeError('Ledgerlens: uploading from a file path needs Node.js 20.19 or later');
    name ??= baseName(source);
    blob = await fs.openAsBlob(source, { type: spec.contentType ?? typeOf(name) });
  } else if (source instanceof Blob) {
    blob = source;
    name ??= (source as File).name || undefined;
  } else if (source instanceof ArrayBuffer) {
    blob = new Blob([source]);
  } else if (ArrayBuffer.isView(source)) {
    blob = new Blob([new Uint8Array(source.buffer as ArrayBuffer, source.byteOffset, source.byteLength)]);
  } else if (typeof ReadableStream !== 'undefined' && source instanceof ReadableStream) {
    blob = await collect(readWebStream(source), maxStreamBytes);
  } else if (isAsyncIterable(source)) {
    blob = await collect(source, maxStreamBytes);
  } else {
    throw new TypeError('Ledgerlens: file must be a Buffer, Uint8Array, ArrayBuffer, Blob, file path or stream');
  }
  name ??= 'document.pdf';
  const type = spec.contentType ?? (blob.type || typeOf(name));
  return new File([blob], name, { type });
}

export function isUploadFile(x: UploadSource | UploadFile): x is UploadFile {
  return (
    typeof x === 'object' &&
    x !== null &&
    'file' in x &&
    !(x instanceof Blob) &&
    !ArrayBuffer.isView(x) &&
    !(x instanceof ArrayBuffer) &&
    !isAsyncIterable(x) &&
    !(typeof ReadableStream !== 'undefined' && x instanceof ReadableStream)
  );
}
