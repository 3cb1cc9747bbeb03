// The bucket of STORAGE_URL (s3://bucket/prefix), for docker/compose.yaml; runs in the server
// image (/app/bin/bucket.mjs) with its S3 client and the server's AWS_* variables (or *_FILE):
//   node bin/bucket.mjs init                        create the bucket (waits up to 60 s for the store)
//   node bin/bucket.mjs backup DIR [--every SECONDS] copy every object missing from DIR (then again every SECONDS)
//   node bin/bucket.mjs restore DIR                 upload every file of DIR (a backup) into the bucket
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

const env = (name) =>
  process.env[`${name}_FILE`] ? readFileSync(process.env[`${name}_FILE`], 'utf8').replace(/\r?\n$/, '') : process.env[name];
const url = /^s3:\/\/([^/]+)\/?(.*)$/.exec(process.env.STORAGE_URL ?? '');
if (!url) throw new Error('STORAGE_URL must be s3://bucket[/prefix]');
const [, bucket, prefix] = url;
const endpoint = process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL;
const s3 = new S3Client({
  region: process.env.AWS_REGION || 'us-east-1',
  endpoint,
  forcePathStyle: Boolean(endpoint),
  credentials: env('AWS_ACCESS_KEY_ID')
    ? { accessKeyId: env('AWS_ACCESS_KEY_ID'), secretAccessKey: env('AWS_SECRET_ACCESS_KEY') }
    : undefined,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});
const log = (msg) => process.stdout.write(`${new Date().toISOString()} bucket ${bucket}: ${msg}\n`);

async function init() {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      return log('created');
    } catch (err) {
      if (['BucketAlreadyOwnedByYou', 'BucketAlreadyExists'].includes(err.name)) return log('exists');
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500)); // the store is still starting
    }
  }
}

async function backup(dir) {
  let copied = 0;
  let token;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const obj of page.Contents ?? []) {
      const file = join(dir, obj.Key);
      if (existsSync(file) && statSync(file).size === obj.Size) continue; // originals never change
      mkdirSync(dirname(file), { recursive: true });
      const body = (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: obj.Key }))).Body;
      await pipeline(body, createWriteStream(`${file}.partial`));
      renameSync(`${file}.partial`, file);
      copied++;
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  log(`backup: ${copied} new file(s) in ${dir}`);
}

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (!entry.name.endsWith('.partial')) yield path;
  }
}

async function restore(dir) {
  let n = 0;
  for (const file of files(dir)) {
    const Key = relative(dir, file);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body: createReadStream(file), ContentLength: statSync(file).size }));
    n++;
  }
  log(`restore: ${n} file(s) from ${dir}`);
}

const [command, dir, flag, seconds] = process.argv.slice(2);
if (command === 'init') await init();
else if (command === 'restore' && dir) await restore(dir);
else if (command === 'backup' && dir) {
  const every = flag === '--every' ? Number(seconds) : 0;
  let stopping = false;
  let wake = () => undefined;
  for (const sig of ['SIGTERM', 'SIGINT'])
    process.on(sig, () => {
      stopping = true;
      wake();
    });
  do {
    await backup(dir);
    if (every > 0) await new Promise((r) => ((wake = r), setTimeout(r, every * 1000)));
  } while (every > 0 && !stopping);
  process.exit(0);
} else {
  process.stderr.write('usage: node bin/bucket.mjs init | backup DIR [--every SECONDS] | restore DIR\n');
  process.exit(2);
}
