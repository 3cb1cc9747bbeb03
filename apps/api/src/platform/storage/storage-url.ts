/** STORAGE_URL and the S3 options, parsed by config without loading the AWS SDK. */
export interface S3Location {
  bucket: string;
  /** Key prefix without leading or trailing slash ('' for the bucket root). */
  prefix: string;
}

/** `s3://bucket/prefix` -> bucket and prefix. */
export function parseStorageUrl(url: string): S3Location | null {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(\/.*)?$/.exec(url);
  if (!match) return null;
  return { bucket: match[1], prefix: (match[2] ?? '').replace(/^\/+|\/+$/g, '') };
}

export interface S3Options {
  /** S3-compatible endpoint (MinIO, R2, a local test server); AWS S3 when null. */
  endpoint: string | null;
  region: string;
  forcePathStyle: boolean;
  /** Null: the SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, profile, instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
  /** Bytes per multipart part; memory held per upload is about partSize x queueSize. */
  partSize: number;
  queueSize: number;
}
