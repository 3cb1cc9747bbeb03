import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config';

const KEY = Buffer.alloc(32, 7).toString('base64');
const SITE = 'https://ledgerlens.example.com';

describe('loadConfig', () => {
  it('defaults to the embedded development setup on loopback', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      nodeEnv: 'development',
      role: 'all',
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: null,
      databasePreparedStatements: true,
      redisUrl: null,
      apiKeyPrefix: 'll_',
    });
    expect(config.dataDir).toMatch(/\.data$/);
    expect(config.rateLimit).toEqual({ windowSeconds: 60, standard: 1000, write: 200, upload: 30, auth: 10, shareView: 60 });
  });

  it('reads every documented variable', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATA_DIR: '/tmp/ll',
      DATABASE_URL: 'postgres://u@db:5432/ll',
      REDIS_URL: 'redis://cache:6379',
      ROLE: 'worker',
      RATE_LIMIT_UPLOAD: '7',
      DATABASE_PREPARED_STATEMENTS: 'false',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      dataDir: '/tmp/ll',
      databaseUrl: 'postgres://u@db:5432/ll',
      databasePreparedStatements: false,
      redisUrl: 'redis://cache:6379',
      role: 'worker',
    });
    expect(config.rateLimit.upload).toBe(7);
  });

  it('lists every problem at once', () => {
    let error: ConfigError | null = null;
    try {
      loadConfig({ PORT: 'eighty', ROLE: 'boss', DATABASE_URL: 'mysql://x', NODE_ENV: 'production', SECRETS_KEY: KEY, PUBLIC_URL: SITE });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems).toHaveLength(4);
    expect(error!.message).toMatch(/PORT must be an integer/);
    expect(error!.message).toMatch(/ROLE must be one of all, api, worker/);
    expect(error!.message).toMatch(/DATABASE_URL must be a postgres/);
    expect(error!.message).toMatch(/HTTPS only/);
  });

  it('accepts production behind a TLS proxy or with certificate files', () => {
    expect(loadConfig({ NODE_ENV: 'production', TRUST_PROXY: 'true', SECRETS_KEY: KEY, PUBLIC_URL: SITE }).host).toBe('0.0.0.0');
    expect(loadConfig({ NODE_ENV: 'production', TLS_CERT_FILE: '/c', TLS_KEY_FILE: '/k', SECRETS_KEY: KEY, PUBLIC_URL: SITE }).tls).toEqual(
      {
        certFile: '/c',
        keyFile: '/k',
      },
    );
    expect(() => loadConfig({ TLS_CERT_FILE: '/c' })).toThrow(/set together/);
  });

  it('needs SECRETS_KEY in production only, as 32 bytes in base64 or hex', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', TRUST_PROXY: 'true' })).toThrow(/SECRETS_KEY is required in production/);
    expect(loadConfig({}).secretsKey).toHaveLength(32);
    expect(loadConfig({ SECRETS_KEY: 'ab'.repeat(32) }).secretsKey).toEqual(Buffer.alloc(32, 0xab));
    expect(loadConfig({ SECRETS_KEY: KEY }).secretsKey).toEqual(Buffer.alloc(32, 7));
    expect(() => loadConfig({ SECRETS_KEY: 'c2hvcnQ=' })).toThrow(/SECRETS_KEY must be 32 bytes/);
  });

  it('needs PUBLIC_URL in production (share links and webhooks carry it), as an http(s) URL', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', TRUST_PROXY: 'true', SECRETS_KEY: KEY })).toThrow(
      /PUBLIC_URL is required in production/,
    );
    expect(loadConfig({ NODE_ENV: 'production', TRUST_PROXY: 'true', SECRETS_KEY: KEY, PUBLIC_URL: `${SITE}/` }).publicUrl).toBe(SITE);
    expect(loadConfig({}).publicUrl).toBe('http://127.0.0.1:8080');
    expect(() => loadConfig({ PUBLIC_URL: 'ledgerlens.example.com' })).toThrow(/PUBLIC_URL must be an http/);
  });

  it('puts DATABASE_PASSWORD / REDIS_PASSWORD (or their _FILE) into a URL written without one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledgerlens-config-'));
    try {
      writeFileSync(join(dir, 'pg'), 'p@ss/word\n');
      const config = loadConfig({
        DATABASE_URL: 'postgres://ledgerlens@db:5432/ledgerlens',
        DATABASE_PASSWORD_FILE: join(dir, 'pg'),
        REDIS_URL: 'redis://redis:6379',
        REDIS_PASSWORD: 'r3dis',
      });
      expect(config.databaseUrl).toBe('postgres://ledgerlens:p%40ss%2Fword@db:5432/ledgerlens');
      expect(new URL(config.databaseUrl!).password).toBe('p%40ss%2Fword');
      expect(config.redisUrl).toBe('redis://:r3dis@redis:6379');
      // a URL that carries its own password keeps it
      expect(loadConfig({ DATABASE_URL: 'postgres://u:own@db/x', DATABASE_PASSWORD: 'other' }).databaseUrl).toBe('postgres://u:own@db/x');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sizes the PostgreSQL pools per process with DATABASE_POOL_MAX (10 by default)', () => {
    expect(loadConfig({}).databasePoolMax).toBe(10);
    expect(loadConfig({ DATABASE_POOL_MAX: '4' }).databasePoolMax).toBe(4);
    expect(() => loadConfig({ DATABASE_POOL_MAX: '0' })).toThrow(/DATABASE_POOL_MAX/);
  });

  it('reads secrets from NAME_FILE (Docker secrets), never both forms', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledgerlens-config-'));
    try {
      writeFileSync(join(dir, 'key'), `${'ab'.repeat(32)}\n`);
      writeFileSync(join(dir, 'db'), 'postgres://ledgerlens:s3cret@db:5432/ledgerlens');
      writeFileSync(join(dir, 'aws'), 'minio-secret\n');
      const config = loadConfig({
        SECRETS_KEY_FILE: join(dir, 'key'),
        DATABASE_URL_FILE: join(dir, 'db'),
        AWS_ACCESS_KEY_ID: 'minio',
        AWS_SECRET_ACCESS_KEY_FILE: join(dir, 'aws'),
        STORAGE_URL: 's3://bucket/prefix',
      });
      expect(config.secretsKey).toEqual(Buffer.alloc(32, 0xab));
      expect(config.databaseUrl).toBe('postgres://ledgerlens:s3cret@db:5432/ledgerlens');
      expect(config.storage).toMatchObject({ kind: 's3' });
      expect(JSON.stringify(config.storage)).toContain('minio-secret');
      expect(() => loadConfig({ SECRETS_KEY: KEY, SECRETS_KEY_FILE: join(dir, 'key') })).toThrow(
        /SECRETS_KEY and SECRETS_KEY_FILE are both set/,
      );
      expect(() => loadConfig({ REDIS_URL_FILE: join(dir, 'missing') })).toThrow(/REDIS_URL_FILE: cannot read .*missing \(ENOENT\)/);
      // TLS_CERT_FILE and HEARTBEAT_FILE are paths in their own right, not secrets to read
      expect(loadConfig({ HEARTBEAT_FILE: join(dir, 'key') }).heartbeat.file).toBe(join(dir, 'key'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('validates the outbound allowlist', () => {
    expect(loadConfig({ OUTBOUND_ALLOWLIST: '127.0.0.1/32, ::1' }).outbound.allowlist).toEqual(['127.0.0.1/32', '::1']);
    expect(() => loadConfig({ OUTBOUND_ALLOWLIST: '127.0.0.1/33,example.com' })).toThrow(/OUTBOUND_ALLOWLIST: .*127\.0\.0\.1\/33/);
  });

  it('reads the metrics settings: token, opt-in listener port and its address', () => {
    expect(loadConfig({}).metrics).toEqual({ token: null, port: null, host: '127.0.0.1' });
    expect(loadConfig({ METRICS_TOKEN: 'a'.repeat(32), METRICS_PORT: '9464', HOST: '10.0.0.5' }).metrics).toEqual({
      token: 'a'.repeat(32),
      port: 9464,
      host: '10.0.0.5',
    });
    expect(loadConfig({ METRICS_PORT: '0', METRICS_HOST: '0.0.0.0' }).metrics).toMatchObject({ port: 0, host: '0.0.0.0' });
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN must be 16-256/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT must be an integer/);
    expect(() => loadConfig({ METRICS_PORT: '8080' })).toThrow(/METRICS_PORT must differ from PORT/);
  });

  it('reads the graceful stop bounds', () => {
    expect(loadConfig({})).toMatchObject({ shutdownGraceSeconds: 10, shutdownDelaySeconds: 0 });
    expect(loadConfig({ SHUTDOWN_GRACE_SECONDS: '30', SHUTDOWN_DELAY_SECONDS: '3' })).toMatchObject({
      shutdownGraceSeconds: 30,
      shutdownDelaySeconds: 3,
    });
    expect(() => loadConfig({ SHUTDOWN_GRACE_SECONDS: '0' })).toThrow(/SHUTDOWN_GRACE_SECONDS must be an integer between 1 and 600/);
  });
});
