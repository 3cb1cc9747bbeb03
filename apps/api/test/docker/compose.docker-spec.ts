import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch, FormData } from 'undici';
import { freePort } from '../support/private-services';
import { DEVSET, ROOT, must, run, runLong, waitFor, withEngine } from './docker-support';

/**
 * docker/compose.yaml run as a user runs it (`npm run test:docker`, CI), on the private engine of
 * docker-support.ts with the stand-in images of tools/docker/base-images.sh (tagged as the images
 * the file names): secrets from docker/setup.sh, the shipped docker/Caddyfile, backups restored
 * with docker/restore.sh. The override file holds only what this machine forces: host networking
 * (so every request stays on 127.0.0.1), hence a port of its own for each service and replica,
 * the build's network, and where the secrets' files are. docker-compose 1.29 refuses published
 * ports on host networking, so Caddy is started apart from `up` (`--scale caddy=0`), by `run`
 * (the service as defined, without its published ports).
 */
const COMPOSE = join(ROOT, 'docker/compose.yaml');
const TERMINAL = ['completed', 'failed', 'cancelled'];

interface Doc {
  id: number;
  status: string;
  transaction_count: number;
}

withEngine('docker/compose.yaml on a real Docker engine', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledgerlens-compose-'));
  const project = `llc${randomUUID().slice(0, 8)}`;
  const restored = `${project}r`;
  const override = join(dir, 'override.yaml');
  let ports: Record<'pg' | 'redis' | 's3' | 'api1' | 'api2' | 'http' | 'https', number>;
  let key = '';
  let tls: Agent | null = null;
  let dealId = 0;
  const originals = new Map<number, Buffer>();

  const compose = (name: string, ...args: string[]): string[] => [
    '-f',
    COMPOSE,
    '-f',
    override,
    '-p',
    name,
    '--env-file',
    join(dir, '.env'),
    ...args,
  ];
  const dc = (name: string, ...args: string[]) => must('docker-compose', compose(name, ...args));
  /** Containers of a service, stopped ones and `run` ones included. */
  const container = (name: string, service: string): string[] =>
    must('docker', [
      'ps',
      '-aq',
      '--filter',
      `label=com.docker.compose.project=${name}`,
      '--filter',
      `label=com.docker.compose.service=${service}`,
    ])
      .trim()
      .split('\n')
      .filter(Boolean);
  const secret = (name: string) => readFileSync(join(dir, 'secrets', name), 'utf8').trim();

  /** The stack up, Caddy included (see above), and Caddy's local root (SITE_ADDRESS=localhost: its internal CA) trusted. */
  async function up(name: string): Promise<void> {
    await runLong('docker-compose', compose(name, 'up', '-d', '--scale', 'caddy=0'));
    dc(name, 'run', '-d', '--no-deps', 'caddy');
    const [caddy] = container(name, 'caddy');
    const root = await waitFor(
      "Caddy's root certificate",
      () => {
        const r = run('docker', ['exec', caddy, 'cat', '/data/caddy/pki/authorities/local/root.crt']);
        return r.code === 0 && r.out.includes('BEGIN CERTIFICATE') ? r.out : null;
      },
      60_000,
    );
    await tls?.close();
    tls = new Agent({ connect: { ca: root, servername: 'localhost' } });
    await waitFor(
      'Caddy proxying to a ready api',
      () =>
        viaCaddy('/health').then(
          (r) => r.ok,
          () => false,
        ),
      60_000,
    );
  }

  const viaCaddy = (path: string, init: Parameters<typeof fetch>[1] = {}) =>
    fetch(`https://localhost:${ports.https}${path}`, {
      ...init,
      dispatcher: tls!,
      headers: { 'X-API-Key': key, ...(init.headers as object) },
    });
  /** Straight to one api replica: plain HTTP, as Caddy forwards it. */
  const direct = (port: number, path: string) =>
    fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'X-API-Key': key, 'X-Forwarded-Proto': 'https' } });

  async function upload(name: string): Promise<number> {
    const bytes = readFileSync(join(DEVSET, name));
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/pdf' }), name);
    const res = await viaCaddy(`/v1/deals/${dealId}/documents`, { method: 'POST', body: form });
    expect([200, 201]).toContain(res.status);
    const { id } = (await res.json()) as { id: number };
    originals.set(id, bytes);
    return id;
  }

  const documentOf = async (id: number): Promise<Doc> => (await (await viaCaddy(`/v1/documents/${id}`)).json()) as Doc;
  const terminal = (id: number, ms: number) =>
    waitFor(`document ${id} terminal`, async () => ((d) => (TERMINAL.includes(d.status) ? d : null))(await documentOf(id)), ms);

  beforeAll(async () => {
    must('bash', [join(ROOT, 'tools/docker/base-images.sh'), 'compose']);
    must('sh', [join(ROOT, 'docker/setup.sh'), 'localhost', dir]);
    ports = { pg: 0, redis: 0, s3: 0, api1: 0, api2: 0, http: 0, https: 0 };
    for (const k of Object.keys(ports) as (keyof typeof ports)[]) ports[k] = await freePort();
    const server = {
      DATABASE_URL: `postgres://ledgerlens@127.0.0.1:${ports.pg}/ledgerlens`,
      REDIS_URL: `redis://127.0.0.1:${ports.redis}`,
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${ports.s3}`,
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      // the drain test keeps four clients sending as fast as they can while a replica stops: on an
      // idle machine that is more than a key's budget of 1,000 requests a minute, and the 429s would
      // hide what the test looks for (the rate limits have tests of their own)
      RATE_LIMIT_STANDARD: '100000',
    };
    const host = (extra: object = {}) => ({ network_mode: 'host', ...extra });
    const built = (env: object = {}) => host({ build: { network: 'host' }, environment: { ...server, ...env } });
    writeFileSync(
      override,
      JSON.stringify({
        services: {
          postgres: host({ environment: { PGPORT: String(ports.pg) } }),
          redis: host({ environment: { REDIS_PORT: String(ports.redis) } }),
          s3: host({ command: ['--port', `127.0.0.1:${ports.s3}`, 'posix', '/data'] }),
          's3-init': built(),
          migrate: built(),
          'api-1': built({ PORT: String(ports.api1) }),
          'api-2': built({ PORT: String(ports.api2) }),
          worker: built(),
          caddy: host({
            environment: {
              HTTP_PORT: String(ports.http),
              HTTPS_PORT: String(ports.https),
              CADDY_ADMIN: 'off',
              API_UPSTREAMS: `127.0.0.1:${ports.api1} 127.0.0.1:${ports.api2}`,
            },
          }),
          'backup-db': host({ environment: { PGHOST: '127.0.0.1', PGPORT: String(ports.pg) } }),
          'backup-files': built(),
        },
        secrets: Object.fromEntries(
          ['postgres_password', 'redis_password', 'secrets_key'].map((s) => [s, { file: join(dir, 'secrets', s) }]),
        ),
      }),
    );
    // a backup every 5 s here (a day by default)
    writeFileSync(join(dir, '.env'), `${readFileSync(join(dir, '.env'), 'utf8')}BACKUP_INTERVAL_SECONDS=5\n`);
    await runLong('docker-compose', compose(project, 'build', 'migrate'));
    await up(project);
    const printed = must(
      'docker-compose',
      compose(
        project,
        'run',
        '--rm',
        '-T',
        'migrate',
        'node',
        'apps/api/dist/cli.js',
        'bootstrap',
        '--org-name',
        'Compose Funding',
        '--email',
        'ops@compose.test',
        '--password-file',
        '-',
        '--json',
      ),
      {},
      'a long compose admin passphrase\n',
    );
    key = (JSON.parse(printed.slice(printed.indexOf('{'), printed.lastIndexOf('}') + 1)) as { api_key: string }).api_key;
  }, 1_800_000);

  afterAll(async () => {
    await tls?.close();
    for (const name of [project, restored]) run('docker-compose', compose(name, 'down', '-v', '--remove-orphans'));
    rmSync(dir, { recursive: true, force: true });
  }, 300_000);

  it('starts from empty volumes with the migrations applied once', () => {
    const rows = dc(
      project,
      'exec',
      '-T',
      'postgres',
      'psql',
      '-U',
      'ledgerlens',
      '-d',
      'ledgerlens',
      '-tAc',
      'select count(*), count(distinct name) from mikro_orm_migrations',
    );
    const [count, distinct] = rows.trim().split('|').map(Number);
    expect(count).toBeGreaterThan(10);
    expect(distinct).toBe(count);
    expect(must('docker', ['inspect', '-f', '{{.State.ExitCode}}', ...container(project, 'migrate')]).trim()).toBe('0');
    expect(container(project, 'worker')).toHaveLength(2);
  });

  it('takes an upload through Caddy (HTTPS), processes it on a worker and serves it from both api replicas', async () => {
    const deal = await viaCaddy('/v1/deals', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ business_name: 'Compose Bakery LLC', funding_amount_requested: 30000 }),
    });
    expect(deal.status).toBe(201);
    dealId = ((await deal.json()) as { id: number }).id;
    const id = await upload('nz-kowhai-tutorial.pdf');
    const doc = await terminal(id, 300_000);
    expect(doc.status).toBe('completed');
    expect(doc.transaction_count).toBeGreaterThan(0);
    // the deal's report, read through the hot reads' own pool (which must log in with the password too)
    await waitFor(
      'the deal ready',
      async () => {
        const report = await viaCaddy(`/v1/deals/${dealId}`);
        expect(report.status).toBe(200);
        return ((await report.json()) as { status: string }).status === 'ready';
      },
      60_000,
    );
    for (const port of [ports.api1, ports.api2]) {
      const res = await direct(port, `/v1/documents/${id}/download`);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(originals.get(id)!)).toBe(true);
    }
  }, 600_000);

  it('takes an api replica out of rotation through /ready when it stops under load (the shipped Caddyfile): no request fails', async () => {
    const [api1] = container(project, 'api-1');
    /** A request through Caddy with an id of ours, which the replica that serves it logs. */
    interface Sent {
      id: string;
      status: number | string;
    }
    const sent: Sent[] = [];
    let n = 0;
    let stop = false;
    const loop = async (k: number) => {
      while (!stop) {
        const id = `drain-${k}-${n++}`;
        try {
          const res = await viaCaddy(`/v1/deals/${dealId}`, { headers: { 'X-Request-Id': id } });
          await res.arrayBuffer();
          sent.push({ id, status: res.status });
        } catch (e) {
          sent.push({ id, status: (e as Error).message });
        }
      }
    };
    const loops = [0, 1, 2, 3].map(loop);
    await waitFor('requests flowing', () => sent.length >= 40, 30_000);
    const stopAt = Date.now();
    await runLong('docker', ['stop', '-t', '30', api1]);
    const stoppedAt = Date.now();
    const before = sent.length;
    await waitFor('requests after the stop', () => sent.length >= before + 40, 30_000);
    stop = true;
    await Promise.all(loops);

    const failed = sent.filter((s) => s.status !== 200);
    expect(failed).toEqual([]);
    // the replica's own log (pino, one line per request it served, with our id and its time)
    const served = new Map<string, number>();
    for (const line of must('docker', ['logs', api1]).split('\n')) {
      const m = /"reqId":"(drain-[\d-]+)".*?"time":(\d+)|"time":(\d+).*?"reqId":"(drain-[\d-]+)"/.exec(line);
      if (m) served.set(m[1] ?? m[4], Number(m[2] ?? m[3]));
    }
    const times = [...served.values()];
    // both replicas were in rotation before the stop
    expect(times.some((t) => t < stopAt)).toBe(true);
    expect(served.size).toBeLessThan(sent.length);
    // it answered /ready with 503 from the stop on, for SHUTDOWN_DELAY_SECONDS (3 s) before closing,
    // and Caddy (checking every second) stopped sending to it well before it closed
    expect(stoppedAt - stopAt).toBeGreaterThanOrEqual(3000);
    expect(Math.max(...times)).toBeLessThan(stopAt + 2500);
    // back in rotation once it answers /ready again
    must('docker', ['start', api1]);
    const id = await waitFor(
      'the replica back in rotation',
      async () => {
        const rid = `drain-back-${n++}`;
        const res = await viaCaddy(`/v1/deals/${dealId}`, { headers: { 'X-Request-Id': rid } });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        return must('docker', ['logs', '--since', '60s', api1]).includes(`"${rid}"`) ? rid : null;
      },
      120_000,
    );
    expect(id).toMatch(/^drain-back-/);
  }, 300_000);

  it('runs every service within the limits the compose file sets, and the connection budget fits PostgreSQL', () => {
    const services = ['api-1', 'api-2', 'worker', 'postgres', 'redis', 's3', 'caddy', 'backup-db', 'backup-files'];
    const servers: Array<{ env: string[] }> = [];
    for (const service of services)
      for (const c of container(project, service)) {
        const [info] = JSON.parse(must('docker', ['inspect', c])) as Array<{
          Config: { Env: string[] };
          State: { Running: boolean };
          HostConfig: {
            Memory: number;
            NanoCpus: number;
            ReadonlyRootfs: boolean;
            CapDrop: string[] | null;
            SecurityOpt: string[] | null;
            RestartPolicy: { Name: string };
            LogConfig: { Type: string; Config: Record<string, string> };
          };
        }>;
        const h = info.HostConfig;
        const where = `${service} (${c.slice(0, 12)})`;
        expect({ where, memory: h.Memory > 0, cpus: h.NanoCpus > 0 }).toEqual({ where, memory: true, cpus: true });
        expect({ where, log: h.LogConfig.Type, size: h.LogConfig.Config['max-size'] }).toEqual({ where, log: 'json-file', size: '10m' });
        if (service === 'caddy') continue; // started by `run` here (see above): no restart policy
        expect({ where, restart: h.RestartPolicy.Name }).toEqual({ where, restart: 'unless-stopped' });
        expect({ where, readOnly: h.ReadonlyRootfs, capDrop: h.CapDrop, noNewPrivileges: h.SecurityOpt }).toEqual({
          where,
          readOnly: true,
          capDrop: ['ALL'],
          noNewPrivileges: ['no-new-privileges:true'],
        });
        if (['api-1', 'api-2', 'worker'].includes(service)) servers.push({ env: info.Config.Env });
      }
    // the engine enforces them: the api's cgroup holds its memory to 1 GiB and its CPU to one core
    const [api] = container(project, 'api-1');
    const cgroup = must('docker', [
      'exec',
      api,
      'sh',
      '-c',
      'cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/cpu.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us',
    ])
      .trim()
      .split(/\s+/)
      .map(Number);
    expect(cgroup[0]).toBe(1024 * 1024 * 1024);
    expect(cgroup[1] / cgroup[2]).toBe(1);
    // each server process opens at most 2 x DATABASE_POOL_MAX connections (docs/docker.md): with the
    // migrate job and the backups, the four stay under PostgreSQL's max_connections
    expect(servers).toHaveLength(4);
    const budget = servers.reduce((sum, s) => {
      const pool = Number(/^DATABASE_POOL_MAX=(\d+)$/m.exec(s.env.join('\n'))?.[1]);
      expect(pool).toBeGreaterThan(0);
      return sum + 2 * pool;
    }, 0);
    const psql = (sql: string) => dc(project, 'exec', '-T', 'postgres', 'psql', '-U', 'ledgerlens', '-d', 'ledgerlens', '-tAc', sql).trim();
    const max = Number(psql('show max_connections'));
    expect(budget + 10).toBeLessThanOrEqual(max);
    expect(Number(psql('select count(*) from pg_stat_activity where datname = current_database()'))).toBeLessThanOrEqual(budget + 2);
  });

  it('compresses JSON at Caddy but never the event stream', async () => {
    // the OpenAPI document: JSON well past Caddy's minimum length
    const list = await viaCaddy('/docs/openapi.json', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toMatch(/^application\/json/);
    expect(list.headers.get('content-encoding')).toBe('gzip');
    await list.arrayBuffer();
    const ctl = new AbortController();
    const stream = await viaCaddy('/v1/events/stream', { headers: { 'Accept-Encoding': 'gzip' }, signal: ctl.signal });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('content-encoding')).toBeNull();
    ctl.abort();
  });

  it('ends a document terminal when its worker containers are killed mid-document', async () => {
    const id = await upload('au-commbank-template-scan.pdf');
    await waitFor('the scan in flight', async () => ((s) => s !== 'uploaded' && s)((await documentOf(id)).status), 120_000);
    // SIGKILL each worker's process (a crash, not a stop): the restart policy brings them back
    for (const c of container(project, 'worker'))
      process.kill(Number(must('docker', ['inspect', '-f', '{{.State.Pid}}', c]).trim()), 'SIGKILL');
    const doc = await terminal(id, 300_000);
    expect(doc.status).toBe('completed');
  }, 600_000);

  it('keeps secrets out of the image and out of the containers’ configuration', () => {
    const values = ['postgres_password', 'redis_password', 'secrets_key'].map(secret);
    const [api] = container(project, 'api-1');
    const seen = [
      must('docker', ['history', '--no-trunc', 'ledgerlens:latest']),
      must('docker', ['image', 'inspect', 'ledgerlens:latest']),
      must('docker', ['inspect', api]),
      ...container(project, 'postgres').map((c) => must('docker', ['inspect', c])),
      ...container(project, 'redis').map((c) => must('docker', ['inspect', c])),
    ].join('\n');
    for (const v of values) expect(seen).not.toContain(v);
    // read from /run/secrets by the server itself
    expect(must('docker', ['inspect', '-f', '{{json .Config.Env}}', api])).toContain('SECRETS_KEY_FILE=/run/secrets/secrets_key');
    expect(must('docker', ['exec', api, 'sh', '-c', 'id -u; touch /app/x 2>&1 || true'])).toMatch(/^1000\n.*Read-only file system/s);
  });

  it('keeps every deal and file across down and up (volumes)', async () => {
    dc(project, 'down');
    await up(project);
    const docs = (await (await viaCaddy(`/v1/deals/${dealId}/documents`)).json()) as { data: Doc[] };
    expect(docs.data.map((d) => d.id).sort()).toEqual([...originals.keys()].sort());
    for (const [id, bytes] of originals) {
      const res = await viaCaddy(`/v1/documents/${id}/download`);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    }
  }, 600_000);

  it('restores the scheduled backup (database and bucket) into a fresh stack', async () => {
    const after = Date.now();
    const [db] = container(project, 'backup-db');
    await waitFor(
      'a database dump and every original in the backups volume',
      () => {
        const r = run('docker', [
          'exec',
          db,
          'sh',
          '-c',
          'stat -c %Y "$(ls -1t /backups/db/*.dump | head -n 1)"; find /backups/files -type f | wc -l',
        ]);
        const [mtime, files] = r.out.trim().split('\n').map(Number);
        return r.code === 0 && mtime * 1000 >= after && files >= originals.size;
      },
      120_000,
    );
    // a fresh stack (its own volumes) on the same ports: the first one goes, its backups are copied over
    const volume = (name: string) => `${name}_backups`;
    dc(project, 'stop');
    must('docker', [
      'volume',
      'create',
      '--label',
      `com.docker.compose.project=${restored}`,
      '--label',
      'com.docker.compose.volume=backups',
      volume(restored),
    ]);
    must('docker', [
      'run',
      '--rm',
      '--network',
      'host',
      '--entrypoint',
      'sh',
      '-v',
      `${volume(project)}:/from:ro`,
      '-v',
      `${volume(restored)}:/to`,
      'postgres:15-bookworm',
      '-c',
      'cp -a /from/. /to/',
    ]);
    dc(project, 'down', '-v');
    await runLong('sh', [join(ROOT, 'docker/restore.sh'), '--', 'docker-compose', ...compose(restored)]);
    await up(restored);
    const deal = (await (await viaCaddy(`/v1/deals/${dealId}`)).json()) as { id: number; business_name: string };
    if (deal.id !== dealId)
      throw new Error(
        `${JSON.stringify(deal)}\n${['api-1', 'api-2']
          .map((a) =>
            run('docker', ['logs', ...container(restored, a)])
              .out.split('\n')
              .filter((l) => /"level":[56]0/.test(l))
              .join('\n'),
          )
          .join('\n')}`,
      );
    expect(deal).toMatchObject({ id: dealId, business_name: 'Compose Bakery LLC' });
    for (const [id, bytes] of originals) {
      const res = await viaCaddy(`/v1/documents/${id}/download`);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    }
  }, 900_000);
});
