import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseAllowlist } from '../outbound/address-policy';
import { parseStorageUrl, S3Location, S3Options } from '../storage/storage-url';

/**
 * The one place that reads process.env. Everything else receives a typed, validated AppConfig.
 * Invalid configuration stops the process at startup with every problem listed at once.
 */
export type Role = 'all' | 'api' | 'worker';
export type NodeEnv = 'development' | 'production' | 'test';

export interface RateLimitConfig {
  windowSeconds: number;
  standard: number;
  write: number;
  upload: number;
  auth: number;
  shareView: number;
}

export interface AppConfig {
  nodeEnv: NodeEnv;
  role: Role;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  /** PostgreSQL: the hot reads are named prepared statements (parsed and planned once per connection). */
  databasePreparedStatements: boolean;
  /** PostgreSQL: connections of the ORM's pool, and as many of the hot reads' own pool (per process). */
  databasePoolMax: number;
  redisUrl: string | null;
  /** Prefix for Redis keys and BullMQ queues, so several deployments (or test suites) can share one Redis. */
  redisPrefix: string;
  logLevel: string;
  apiKeyPrefix: string;
  publicUrl: string;
  tls: { certFile: string; keyFile: string } | null;
  trustProxy: boolean;
  rateLimit: RateLimitConfig;
  idempotencyTtlSeconds: number;
  sessionTtlSeconds: number;
  /** How long a resolved API key is reused without a database lookup (0: every request looks it up). */
  authCacheSeconds: number;
  oauthTokenTtlSeconds: number;
  /** Seconds between outbox polls; events written in this process are dispatched at once anyway. */
  outboxPollSeconds: number;
  demoBootstrap: boolean;
  /** LLM (Groq): parsing fallback and AI summaries. Null key = deterministic rule parser and template summary. */
  groq: { apiKey: string | null; baseUrl: string; model: string; timeoutMs: number; maxTokens: number };
  uploads: { maxFileBytes: number; maxBulkFiles: number };
  /**
   * Parsing runs in a pool of `concurrency` child processes, never on the API's event loop; a
   * document that passes `timeoutMs` or `maxRssMb` has its process killed and fails. The sweeper
   * fails documents with no progress for `stuckSeconds`, every `sweepSeconds`.
   */
  pipeline: {
    concurrency: number;
    timeoutMs: number;
    maxRssMb: number;
    sweepSeconds: number;
    stuckSeconds: number;
    retryBaseMs: number;
    stalledSeconds: number;
  };
  /** AES-256-GCM key for secrets stored in the database (webhook secrets, CRM credentials). */
  secretsKey: Buffer;
  /**
   * Outbound HTTP (webhooks, callbacks, CRM): addresses (CIDRs) that may be reached although
   * private, loopback or link-local; plain http:// is accepted for them outside production.
   */
  outbound: { allowlist: string[] };
  webhooks: { timeoutMs: number };
  /** CRM calls: per-request timeout; 429/5xx retried up to `maxRetries` times (Retry-After honoured up to `maxRetryDelayMs`). */
  crm: { timeoutMs: number; maxRetries: number; retryBaseMs: number; maxRetryDelayMs: number };
  sse: { heartbeatSeconds: number };
  /** Liveness file of a process without an HTTP port (ROLE=worker): written every `seconds` while healthy. */
  heartbeat: { file: string | null; seconds: number };
  /**
   * Monthly quota of the deployment's plan, counted per organization for live credentials only
   * (test keys are free). Null = unlimited. Request counts are kept in Redis when configured
   * (exact across replicas), else in the database, batched every `flushMs` per process.
   */
  /**
   * Where original uploads are kept: `local` under DATA_DIR (the embedded default), or an
   * S3-compatible bucket (STORAGE_URL=s3://bucket/prefix with the standard AWS variables).
   */
  storage: { kind: 'local' } | { kind: 's3'; location: S3Location; s3: S3Options };
  /**
   * Prometheus metrics: `token` (METRICS_TOKEN) is the bearer token /metrics requires when set;
   * `port` (METRICS_PORT, opt-in) starts a separate plain-HTTP listener on `host` serving only
   * /metrics, the way to scrape a worker (it has no HTTP port otherwise).
   */
  metrics: { token: string | null; port: number | null; host: string };
  /**
   * Graceful stop (SIGTERM): how long requests in flight may take to finish, and then how long the
   * documents being parsed may take before they are handed back to the queue for another worker.
   */
  shutdownGraceSeconds: number;
  /** Before that (api roles): how long /ready answers 503 while serving, so load balancers polling it move away. */
  shutdownDelaySeconds: number;
  usage: { plan: string; requestsPerMonth: number | null; documentsPerMonth: number | null; flushMs: number };
}

/** Development-only default: a fixed, public key, so secrets written by `npm start` survive restarts. */
const DEV_SECRETS_KEY = createHash('sha256').update('ledgerlens development secrets key (not secret)').digest();

function secretsKeyFrom(raw: string | null, production: boolean, problems: string[]): Buffer {
  if (raw === null) {
    if (production)
      problems.push('SECRETS_KEY is required in production: 32 random bytes, base64 (openssl rand -base64 32) or 64 hex characters');
    return DEV_SECRETS_KEY;
  }
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    problems.push('SECRETS_KEY must be 32 bytes, base64 (openssl rand -base64 32) or 64 hex characters');
    return DEV_SECRETS_KEY;
  }
  return key;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

type Env = Record<string, string | undefined>;

/**
 * Secrets that may be given as a file instead (Docker and Kubernetes secrets, so the value is not
 * in the container's environment): `NAME_FILE=/run/secrets/name` holds the value of NAME, one
 * trailing newline ignored. Setting both is an error.
 */
export const FILE_VARIABLES = [
  'SECRETS_KEY',
  'DATABASE_URL',
  'DATABASE_PASSWORD',
  'REDIS_URL',
  'REDIS_PASSWORD',
  'GROQ_API_KEY',
  'METRICS_TOKEN',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
] as const;

function withFileVariables(env: Env, problems: string[]): Env {
  let out = env;
  for (const name of FILE_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (file === undefined || file === '') continue;
    if (env[name] !== undefined && env[name] !== '') {
      problems.push(`${name} and ${name}_FILE are both set: set one`);
      continue;
    }
    try {
      out = { ...out, [name]: readFileSync(file, 'utf8').replace(/\r?\n$/, '') };
    } catch (err) {
      problems.push(`${name}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  }
  return out;
}

/**
 * `DATABASE_PASSWORD` / `REDIS_PASSWORD` (or their `_FILE`): the password of a URL written
 * without one, so the URL can stay in plain configuration and only the password is a secret.
 */
function withPassword(url: string | null, password: string | null): string | null {
  if (!url || !password) return url;
  try {
    const parsed = new URL(url);
    if (parsed.password) return url;
    parsed.password = encodeURIComponent(password);
    return parsed.toString();
  } catch {
    return url;
  }
}

export function loadConfig(rawEnv: Env = process.env, overrides: Partial<AppConfig> = {}): AppConfig {
  const problems: string[] = [];
  const env = withFileVariables(rawEnv, problems);
  const str = (name: string, fallback: string): string => {
    const v = env[name];
    return v === undefined || v === '' ? fallback : v;
  };
  const optional = (name: string): string | null => {
    const v = env[name];
    return v === undefined || v === '' ? null : v;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return fallback;
    }
    return n;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
    if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const oneOf = <T extends string>(name: string, fallback: T, allowed: readonly T[]): T => {
    const raw = str(name, fallback);
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return fallback;
    }
    return raw as T;
  };

  const nodeEnv = oneOf<NodeEnv>('NODE_ENV', 'development', ['development', 'production', 'test']);
  const production = nodeEnv === 'production';
  const port = int('PORT', 8080, 0, 65535);
  const host = str('HOST', production ? '0.0.0.0' : '127.0.0.1');
  const databaseUrl = withPassword(optional('DATABASE_URL'), optional('DATABASE_PASSWORD'));
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const redisUrl = withPassword(optional('REDIS_URL'), optional('REDIS_PASSWORD'));
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) problems.push('REDIS_URL must be a redis:// or rediss:// URL');

  const certFile = optional('TLS_CERT_FILE');
  const keyFile = optional('TLS_KEY_FILE');
  if ((certFile === null) !== (keyFile === null)) problems.push('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  const trustProxy = bool('TRUST_PROXY', false);
  if (production && !certFile && !trustProxy) {
    problems.push(
      'NODE_ENV=production serves HTTPS only: set TLS_CERT_FILE and TLS_KEY_FILE, or TRUST_PROXY=true behind a TLS-terminating proxy',
    );
  }
  const apiKeyPrefix = str('API_KEY_PREFIX', 'll_');
  if (!/^[a-z][a-z0-9]{0,7}_$/.test(apiKeyPrefix)) {
    problems.push('API_KEY_PREFIX must be 1-8 lowercase letters/digits followed by "_" (e.g. ll_)');
  }
  const role = oneOf<Role>('ROLE', 'all', ['all', 'api', 'worker']);
  if (role !== 'all' && !redisUrl)
    problems.push(`ROLE=${role} splits API and workers, which share jobs through Redis: set REDIS_URL (and DATABASE_URL)`);
  const scheme = certFile ? 'https' : 'http';
  const secretsKey = secretsKeyFrom(optional('SECRETS_KEY'), production, problems);
  const allowlist = (optional('OUTBOUND_ALLOWLIST') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const problem of parseAllowlist(allowlist).problems) problems.push(`OUTBOUND_ALLOWLIST: ${problem}`);
  const storageUrl = optional('STORAGE_URL');
  let storage: AppConfig['storage'] = { kind: 'local' };
  if (storageUrl) {
    const location = parseStorageUrl(storageUrl);
    if (!location)
      problems.push('STORAGE_URL must be s3://bucket or s3://bucket/prefix (bucket: 3-63 lowercase letters, digits, dots, dashes)');
    const endpoint = optional('AWS_ENDPOINT_URL_S3') ?? optional('AWS_ENDPOINT_URL');
    if (endpoint && !/^https?:\/\//.test(endpoint)) problems.push('AWS_ENDPOINT_URL(_S3) must be an http:// or https:// URL');
    const accessKeyId = optional('AWS_ACCESS_KEY_ID');
    const secretAccessKey = optional('AWS_SECRET_ACCESS_KEY');
    if ((accessKeyId === null) !== (secretAccessKey === null))
      problems.push('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together');
    const partMb = int('S3_PART_SIZE_MB', 8, 5, 512);
    storage = {
      kind: 's3',
      location: location ?? { bucket: 'invalid', prefix: '' },
      s3: {
        endpoint,
        region: optional('AWS_REGION') ?? optional('AWS_DEFAULT_REGION') ?? 'us-east-1',
        // MinIO and most S3-compatible servers want path-style URLs; AWS itself does not.
        forcePathStyle: bool('S3_FORCE_PATH_STYLE', endpoint !== null),
        credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : null,
        partSize: partMb * 1024 * 1024,
        queueSize: int('S3_UPLOAD_QUEUE_SIZE', 2, 1, 16),
      },
    };
  }
  const metricsToken = optional('METRICS_TOKEN');
  if (metricsToken !== null && !/^[\x21-\x7e]{16,256}$/.test(metricsToken))
    problems.push('METRICS_TOKEN must be 16-256 printable characters without spaces (e.g. openssl rand -hex 32)');
  const metricsPort = optional('METRICS_PORT') === null ? null : int('METRICS_PORT', 0, 0, 65535);
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === port && role !== 'worker')
    problems.push('METRICS_PORT must differ from PORT (/metrics is served on PORT anyway)');
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  // Share links and webhook payloads carry this address: a production server must be told its own.
  if (production && optional('PUBLIC_URL') === null) {
    problems.push('PUBLIC_URL is required in production: the address users reach this server at (https://ledgerlens.example.com)');
  }
  const publicUrl = optional('PUBLIC_URL');
  if (publicUrl !== null && !/^https?:\/\/[^/\s]+/.test(publicUrl))
    problems.push(`PUBLIC_URL must be an http:// or https:// URL (got "${publicUrl}")`);

  const config: AppConfig = {
    nodeEnv,
    role,
    port,
    host,
    dataDir: resolve(str('DATA_DIR', './.data')),
    databaseUrl,
    databasePreparedStatements: bool('DATABASE_PREPARED_STATEMENTS', true),
    databasePoolMax: int('DATABASE_POOL_MAX', 10, 1, 500),
    redisUrl,
    redisPrefix: str('REDIS_PREFIX', 'ledgerlens'),
    logLevel: oneOf('LOG_LEVEL', nodeEnv === 'test' ? 'warn' : 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    apiKeyPrefix,
    publicUrl: str('PUBLIC_URL', `${scheme}://${shownHost}:${port}`).replace(/\/+$/, ''),
    tls: certFile && keyFile ? { certFile, keyFile } : null,
    trustProxy,
    rateLimit: {
      windowSeconds: int('RATE_LIMIT_WINDOW_SECONDS', 60, 1, 3600),
      standard: int('RATE_LIMIT_STANDARD', 1000, 1, 1_000_000),
      write: int('RATE_LIMIT_WRITE', 200, 1, 1_000_000),
      upload: int('RATE_LIMIT_UPLOAD', 30, 1, 1_000_000),
      auth: int('RATE_LIMIT_AUTH', 10, 1, 1_000_000),
      shareView: int('RATE_LIMIT_SHARE_VIEW', 60, 1, 1_000_000),
    },
    idempotencyTtlSeconds: int('IDEMPOTENCY_TTL_SECONDS', 24 * 3600, 60, 30 * 24 * 3600),
    sessionTtlSeconds: int('SESSION_TTL_SECONDS', 24 * 3600, 60, 30 * 24 * 3600),
    authCacheSeconds: int('AUTH_CACHE_SECONDS', 5, 0, 300),
    oauthTokenTtlSeconds: int('OAUTH_TOKEN_TTL_SECONDS', 3600, 60, 24 * 3600),
    outboxPollSeconds: int('OUTBOX_POLL_SECONDS', 5, 1, 3600),
    demoBootstrap: bool('DEMO_BOOTSTRAP', !production),
    groq: {
      apiKey: optional('GROQ_API_KEY'),
      baseUrl: str('GROQ_BASE_URL', 'https://api.groq.com').replace(/\/+$/, ''),
      model: str('GROQ_MODEL', 'llama-3.3-70b-versatile'),
      timeoutMs: int('GROQ_TIMEOUT_MS', 20_000, 100, 600_000),
      maxTokens: int('GROQ_MAX_TOKENS', 1024, 16, 32_768),
    },
    uploads: {
      maxFileBytes: int('MAX_UPLOAD_BYTES', 25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxBulkFiles: int('MAX_BULK_FILES', 25, 1, 1000),
    },
    pipeline: {
      concurrency: int('PIPELINE_CONCURRENCY', 2, 1, 64),
      timeoutMs: int('PIPELINE_TIMEOUT_MS', 120_000, 1000, 3_600_000),
      maxRssMb: int('PIPELINE_MAX_RSS_MB', 1024, 128, 16_384),
      sweepSeconds: int('PIPELINE_SWEEP_SECONDS', 60, 1, 86_400),
      stuckSeconds: int('PIPELINE_STUCK_SECONDS', 1800, 2, 7 * 86_400),
      retryBaseMs: int('PIPELINE_RETRY_BASE_MS', 1000, 10, 600_000),
      stalledSeconds: int('PIPELINE_STALLED_SECONDS', 30, 2, 3600),
    },
    secretsKey,
    outbound: { allowlist },
    webhooks: { timeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000) },
    crm: {
      timeoutMs: int('CRM_TIMEOUT_MS', 15_000, 100, 120_000),
      maxRetries: int('CRM_MAX_RETRIES', 3, 0, 10),
      retryBaseMs: int('CRM_RETRY_BASE_MS', 1000, 1, 60_000),
      maxRetryDelayMs: int('CRM_MAX_RETRY_DELAY_MS', 60_000, 1, 3_600_000),
    },
    sse: { heartbeatSeconds: int('SSE_HEARTBEAT_SECONDS', 15, 1, 300) },
    heartbeat: { file: optional('HEARTBEAT_FILE'), seconds: int('HEARTBEAT_SECONDS', 10, 1, 3600) },
    storage,
    shutdownGraceSeconds: int('SHUTDOWN_GRACE_SECONDS', 10, 1, 600),
    shutdownDelaySeconds: int('SHUTDOWN_DELAY_SECONDS', 0, 0, 60),
    metrics: { token: metricsToken, port: metricsPort, host: str('METRICS_HOST', host) },
    usage: {
      plan: str('QUOTA_PLAN', 'standard'),
      requestsPerMonth: int('QUOTA_MONTHLY_REQUESTS', 1_000_000, 0, 2_000_000_000) || null,
      documentsPerMonth: int('QUOTA_MONTHLY_DOCUMENTS', 10_000, 0, 2_000_000_000) || null,
      flushMs: int('USAGE_FLUSH_MS', 1000, 10, 60_000),
    },
    ...overrides,
  };
  if (config.pipeline.stuckSeconds * 1000 <= config.pipeline.timeoutMs) {
    problems.push('PIPELINE_STUCK_SECONDS must be longer than PIPELINE_TIMEOUT_MS (a document being parsed is not stuck)');
  }
  if (problems.length) throw new ConfigError(problems);
  return config;
}

export const APP_CONFIG = Symbol('APP_CONFIG');
