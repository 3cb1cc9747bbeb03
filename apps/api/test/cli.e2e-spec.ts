import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeStatement } from '../../../tools/corpus/corpus';
import { LAYOUTS } from '../../../tools/corpus/layouts';

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

function cli(dataDir: string, args: string[], extra: { env?: Record<string, string>; input?: string } = {}) {
  const started = Date.now();
  const res = spawnSync(process.execPath, [join(DIST, 'cli.js'), ...args], {
    env: { ...ENV, DATA_DIR: dataDir, ...extra.env },
    encoding: 'utf8',
    timeout: 60_000,
    input: extra.input,
  });
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
    const orgId: number = result.organization.id;

    // the password from a file (Docker secrets), not the command line
    const passwordFile = join(dataDir, 'uw-password');
    writeFileSync(passwordFile, 'file-borne passphrase\n');
    const both = cli(dataDir, [
      'user:create',
      '--org-id',
      String(orgId),
      '--email',
      'uw@acme.test',
      '--password-file',
      passwordFile,
      '--password',
      'x',
      '--role',
      'underwriter',
    ]);
    expect(both.status).toBe(1);
    expect(both.stderr).toMatch(/give the password one way/);
    const user = cli(dataDir, [
      'user:create',
      '--org-id',
      String(orgId),
      '--email',
      'uw@acme.test',
      '--password-file',
      passwordFile,
      '--role',
      'underwriter',
      '--json',
    ]);
    expect(user.status).toBe(0);
    const created = JSON.parse(user.stdout);
    expect(created).toEqual({
      user: { id: expect.any(Number), email: 'uw@acme.test', role: 'underwriter' },
      api_key: expect.stringMatching(/^ll_live_/),
    });
    const userKey: string = created.api_key;

    const duplicate = cli(dataDir, ['user:create', '--org-id', String(orgId), '--email', 'uw@acme.test', '--role', 'underwriter'], {
      env: { LEDGERLENS_PASSWORD: 'secret-pass' },
    });
    expect(duplicate.status).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists/);
    const badRole = cli(
      dataDir,
      ['user:create', '--org-id', String(orgId), '--email', 'x@acme.test', '--password-file', '-', '--role', 'owner'],
      {
        input: 'from standard input\n',
      },
    );
    expect(badRole.stderr).toMatch(/role must be one of/);
    const usage = cli(dataDir, ['bootstrap', '--org-name', 'X']);
    expect(usage.status).toBe(1);
    expect(usage.stderr).toMatch(/--email is required/);

    const second = await startServer(dataDir);
    let dealId: number;
    try {
      expect(second.output()).not.toMatch(/First start/);
      const created = await fetch(`${second.url}/v1/deals`, {
        method: 'POST',
        headers: { 'X-API-Key': userKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ business_name: 'Persisted', funding_amount_requested: 100 }),
      });
      expect(created.status).toBe(201);
      dealId = ((await created.json()) as { id: number }).id;
      // the password read from the file, without its trailing newline, signs the user in
      const login = (pw: string) =>
        fetch(`${second.url}/v1/auth/login`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email: 'uw@acme.test', password: pw }),
        });
      expect((await login('file-borne passphrase')).status).toBe(200);
    } finally {
      await stop(second.proc);
    }

    // The CLI adds files through the same document-creation command as an upload.
    const statement = await makeStatement(
      LAYOUTS.find((l) => l.name === 'signed_single_column')!,
      5,
      20,
    );
    const pdf = join(dataDir, 'march.pdf');
    const notPdf = join(dataDir, 'notes.txt');
    writeFileSync(pdf, statement.bytes);
    writeFileSync(notPdf, 'not a statement');
    const added = cli(dataDir, [
      'documents:add',
      '--org-id',
      String(orgId),
      '--deal-id',
      String(dealId),
      '--label',
      'March',
      '--json',
      pdf,
    ]);
    expect(added.stderr).toBe('');
    expect(added.status).toBe(0);
    const addedBody = JSON.parse(added.stdout);
    expect(addedBody).toEqual({
      deal_id: dealId,
      documents: [{ id: expect.any(Number), filename: 'march.pdf', status: 'uploaded' }],
      rejected: [],
    });
    const refused = cli(dataDir, ['documents:add', '--org-id', String(orgId), '--deal-id', String(dealId), '--json', notPdf]);
    expect(refused.status).toBe(1);
    expect(JSON.parse(refused.stdout).rejected).toEqual([
      { filename: 'notes.txt', code: 'UNSUPPORTED_MEDIA_TYPE', detail: expect.any(String) },
    ]);
    const otherOrg = cli(dataDir, ['documents:add', '--org-id', String(orgId + 1000), '--deal-id', String(dealId), pdf]);
    expect(otherOrg.stderr).toMatch(/DEAL_NOT_FOUND/);

    const third = await startServer(dataDir);
    try {
      const list = (await (await fetch(`${third.url}/v1/deals`, { headers: { 'X-API-Key': userKey } })).json()) as {
        data: { business_name: string }[];
      };
      expect(list.data.map((d) => d.business_name)).toEqual(['Persisted']);
      // the server resumes the document the CLI queued; poll the other process until it is done
      const docId = addedBody.documents[0].id;
      let doc: { status: string; label: string } = { status: '', label: '' };
      for (let i = 0; i < 600 && !['completed', 'failed'].includes(doc.status); i++) {
        doc = (await (await fetch(`${third.url}/v1/documents/${docId}`, { headers: { 'X-API-Key': userKey } })).json()) as typeof doc;
        if (doc.status !== 'completed') await new Promise((r) => setTimeout(r, 100));
      }
      expect(doc).toMatchObject({ status: 'completed', label: 'March' });
      let deal: { status: string; statements: unknown[] } = { status: '', statements: [] };
      for (let i = 0; i < 100 && deal.status !== 'ready'; i++) {
        deal = (await (await fetch(`${third.url}/v1/deals/${dealId}`, { headers: { 'X-API-Key': userKey } })).json()) as typeof deal;
        if (deal.status !== 'ready') await new Promise((r) => setTimeout(r, 100));
      }
      expect(deal.status).toBe('ready');
      expect(deal.statements).toHaveLength(1);
    } finally {
      await stop(third.proc);
    }
  }, 240_000);
});
