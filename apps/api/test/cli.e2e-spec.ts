import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const DIST = resolve(__dirname, '../dist');
const ENV = { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '', NODE_ENV: 'development', PORT: '0' };

/** Starts `node dist/main.js` (what `npm start` runs) and resolves once it prints its URL. */
function startServer(dataDir: string): Promise<{ proc: ChildProcess; url: string; output: () => string }> {
  const proc = spawn(process.execPath, [join(DIST, 'main.js')], { env: { ...ENV, DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolvePromise, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolvePromise({ proc, url: match[1], output: () => out });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

function stop(proc: ChildProcess): Promise<void> {
  return new Promise((r) => {
    if (proc.exitCode !== null) return r();
    proc.removeAllListeners('exit');
    proc.on('exit', () => r());
    proc.kill('SIGTERM');
  });
}

function cli(dataDir: string, args: string[]) {
  const started = Date.now();
  const res = spawnSync(process.execPath, [join(DIST, 'cli.js'), ...args], { env: { ...ENV, DATA_DIR: dataDir }, encoding: 'utf8', timeout: 60_000 });
  return { ...res, ms: Date.now() - started };
}

describe('npm start and the admin CLI on the embedded database', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'ledgerlens-cli-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('first start prints the URL and a working demo key; the CLI refuses the locked DATA_DIR at once; data survives a restart', async () => {
    // Seven process starts on a 2-core machine: generous time, since the suite runs beside others.
    const first = await startServer(dataDir);
    let userKey: string;
    let orgId: number;
    try {
      const key = /live API key:\s+(\S+)/.exec(first.output())?.[1];
      expect(key).toMatch(/^ll_live_/);
      const res = await fetch(`${first.url}/v1/deals`, { headers: { 'X-API-Key': key! } });
      expect(res.status).toBe(200);

      const locked = cli(dataDir, ['bootstrap', '--org-name', 'Acme', '--email', 'ops@acme.test', '--password', 'secret-pass', '--json']);
      expect(locked.status).toBe(3);
      expect(locked.stderr).toMatch(/in use by another Ledgerlens process/);
      expect(locked.ms).toBeLessThan(20_000);
    } finally {
      await stop(first.proc);
    }

    // A graceful stop closes the embedded database and releases DATA_DIR.
    expect(existsSync(join(dataDir, 'ledgerlens.lock'))).toBe(false);
    const boot = cli(dataDir, ['bootstrap', '--org-name', 'Acme', '--email', 'ops@acme.test', '--password', 'secret-pass', '--json']);
    expect(boot.status).toBe(0);
    const result = JSON.parse(boot.stdout);
    expect(result).toEqual({
      organization: { id: expect.any(Number), name: 'Acme' },
      user: { id: expect.any(Number), email: 'ops@acme.test', role: 'admin' },
      api_key: expect.stringMatching(/^ll_live_/),
      test_api_key: expect.stringMatching(/^ll_test_/),
      oauth_client: { client_id: expect.stringMatching(/^cli_/), client_secret: expect.stringMatching(/^cs_/) },
    });
    orgId = result.organization.id;

    const user = cli(dataDir, ['user:create', '--org-id', String(orgId), '--email', 'uw@acme.test', '--password', 'secret-pass', '--role', 'underwriter', '--json']);
    expect(user.status).toBe(0);
    const created = JSON.parse(user.stdout);
    expect(created).toEqual({ user: { id: expect.any(Number), email: 'uw@acme.test', role: 'underwriter' }, api_key: expect.stringMatching(/^ll_live_/) });
    userKey = created.api_key;

    const duplicate = cli(dataDir, ['user:create', '--org-id', String(orgId), '--email', 'uw@acme.test', '--password', 'secret-pass', '--role', 'underwriter']);
    expect(duplicate.status).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists/);
    const badRole = cli(dataDir, ['user:create', '--org-id', String(orgId), '--email', 'x@acme.test', '--password', 'secret-pass', '--role', 'owner']);
    expect(badRole.stderr).toMatch(/role must be one of/);
    const usage = cli(dataDir, ['bootstrap', '--org-name', 'X']);
    expect(usage.status).toBe(1);
    expect(usage.stderr).toMatch(/--email is required/);

    const second = await startServer(dataDir);
    try {
      expect(second.output()).not.toMatch(/First start/);
      const created = await fetch(`${second.url}/v1/deals`, {
        method: 'POST',
        headers: { 'X-API-Key': userKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ business_name: 'Persisted', funding_amount_requested: 100 }),
      });
      expect(created.status).toBe(201);
    } finally {
      await stop(second.proc);
    }
    const third = await startServer(dataDir);
    try {
      const list = (await (await fetch(`${third.url}/v1/deals`, { headers: { 'X-API-Key': userKey } })).json()) as { data: { business_name: string }[] };
      expect(list.data.map((d) => d.business_name)).toEqual(['Persisted']);
    } finally {
      await stop(third.proc);
    }
  }, 240_000);
});
