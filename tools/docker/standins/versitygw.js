#!/usr/bin/env node
// Stand-in for versity/versitygw (tools/docker/base-images.sh): its command line and environment
// (`[--port ADDR] posix DIR`, ROOT_ACCESS_KEY/ROOT_SECRET_KEY or ROOT_ACCESS_KEY_ID/
// ROOT_SECRET_ACCESS_KEY, VGW_PORT) over s3rver, which signs requests with that key pair.
'use strict';
const S3rver = require('s3rver');
const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account');

const args = process.argv.slice(2);
let listen = process.env.VGW_PORT || ':7070';
const rest = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--port' || args[i] === '-p') listen = args[++i];
  else rest.push(args[i]);
}
if (rest[0] !== 'posix' || !rest[1]) {
  console.error('usage: versitygw [--port ADDR] posix DIR');
  process.exit(2);
}
const access = process.env.ROOT_ACCESS_KEY || process.env.ROOT_ACCESS_KEY_ID;
const secret = process.env.ROOT_SECRET_KEY || process.env.ROOT_SECRET_ACCESS_KEY;
if (!access || !secret) {
  console.error('ROOT_ACCESS_KEY and ROOT_SECRET_KEY are required');
  process.exit(2);
}
DUMMY_ACCOUNT.createKeyPair(access, secret);
DUMMY_ACCOUNT.accessKeys.delete('S3RVER');
const colon = listen.lastIndexOf(':');
const address = listen.slice(0, colon) || '0.0.0.0';
const port = Number(listen.slice(colon + 1));
const server = new S3rver({ address, port, silent: true, directory: rest[1] });
server.run().then(
  (a) => console.log(`versitygw stand-in (s3rver) on ${a.address}:${a.port}, posix ${rest[1]}`),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close().then(() => process.exit(0)));
