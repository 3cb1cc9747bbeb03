import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/private-services';
import { DEVSET, MB, ROOT, must, run, runLong, waitFor, withEngine, type Run } from './docker-support';

/**
 * docker/Dockerfile built and run on a real Docker engine (`npm run test:docker`, CI): the engine
 * of tools/docker/engine.sh (docker-support.ts) and the stand-in base image of
 * tools/docker/base-images.sh, tagged as the public one the Dockerfile names.
 */
const IMAGE = 'ledgerlens:docker-test';
const BASE = 'node:24-bookworm-slim';
/** What the image may add to its base: the server, its production dependencies and fonts. */
const MAX_ADDED_MB = 200;

/** docker build with the classic builder (the build takes minutes). */
const build = (context: string, tag: string): Promise<string> =>
  runLong('docker', ['build', '--network', 'host', '-f', join(context, 'docker/Dockerfile'), '-t', tag, context]);

withEngine('the server image (docker/Dockerfile) on a real Docker engine', () => {
  let buildLog = '';
  const containers: string[] = [];

  beforeAll(async () => {
    must('bash', [join(ROOT, 'tools/docker/base-images.sh')]);
    buildLog = await build(ROOT, IMAGE);
  }, 1_800_000);

  afterAll(() => {
    for (const id of containers) run('docker', ['rm', '-f', id]);
  });

  const inImage = (script: string): Run => run('docker', ['run', '--rm', '--network', 'host', '--entrypoint', 'sh', IMAGE, '-c', script]);

  it('runs as the unprivileged node user on Node.js 24', () => {
    expect(must('docker', ['image', 'inspect', '-f', '{{.Config.User}}', IMAGE]).trim()).toBe('node');
    expect(inImage('id -u; node --version').out.trim().split('\n')).toEqual(['1000', expect.stringMatching(/^v24\./)]);
  });

  it('holds the server and its production dependencies only, within 200 MB of its base', () => {
    const size = Number(must('docker', ['image', 'inspect', '-f', '{{.Size}}', IMAGE]));
    const base = Number(must('docker', ['image', 'inspect', '-f', '{{.Size}}', BASE]));
    process.stdout.write(
      `image ${(size / MB).toFixed(0)} MB, base ${(base / MB).toFixed(0)} MB, added ${((size - base) / MB).toFixed(0)} MB\n`,
    );
    expect((size - base) / MB).toBeLessThanOrEqual(MAX_ADDED_MB);
    // each line printed names something that must not be there
    const found = inImage(
      [
        'cd /app',
        'for d in typescript jest @swc/core eslint prettier nx @nestjs/testing playwright-core ts-node; do [ -e node_modules/$d ] && echo "dev dependency: $d"; done',
        'for c in gcc cc g++ c++ make python3; do command -v $c >/dev/null && echo "compiler or build tool: $c"; done',
        'for p in apps/api/src apps/api/test tools packages/sdk/src packages/statements/src docker .git; do [ -e $p ] && echo "source or tooling: $p"; done',
        // our tests, fixtures and source maps of tests (packages' own published files under node_modules are theirs)
        'find /app -path /app/node_modules -prune -o \\( -name "*.spec.js" -o -name "*.spec.js.map" -o -name "*.e2e-spec.*" -o -name "__fixtures__" \\) -print | sed "s/^/test file: /"',
        'find / -xdev \\( -name "statements-devset" -o -name "*.devset.*" -o -name ".env" -o -name ".env.*" \\) -print 2>/dev/null | sed "s/^/test data or secret: /"',
        'find /app -maxdepth 3 -name ".tsbuildinfo" | sed "s/^/build state: /"',
      ].join('; '),
    ).out;
    expect(found.trim()).toBe('');
  });

  it('ran no install script while building (@scarf/scarf telemetry blocked)', () => {
    // the build runs npm with foreground scripts, so a script that ran would print "> pkg@version postinstall"
    const npmCi = buildLog.split(/^Step \d+\/\d+ : /m).find((step) => step.startsWith('RUN npm ci'));
    expect(buildLog).toMatch(/^Step \d+\/\d+ : ENV npm_config_ignore_scripts=true .*npm_config_foreground_scripts=true/m);
    // A layer reused from the cache was made under that same ENV (it is part of the cache key), by
    // an earlier build whose output was checked here; a fresh install shows its own output.
    if (!npmCi?.includes('Using cache')) expect(npmCi).toMatch(/added \d+ packages/);
    expect(npmCi).not.toMatch(/^> \S+@\S+ (preinstall|install|postinstall)$/m);
    expect(npmCi).not.toMatch(/scarf/i);
  });

  it('serves /health, passes its health check, and reads a statement and a scan to completed', async () => {
    const port = await freePort();
    const id = must('docker', [
      'run',
      '-d',
      '--network',
      'host',
      '-e',
      `PORT=${port}`,
      '-e',
      'HOST=127.0.0.1',
      '-e',
      `PUBLIC_URL=http://127.0.0.1:${port}`,
      '-e',
      'TRUST_PROXY=true',
      '-e',
      `SECRETS_KEY=${Buffer.alloc(32, 7).toString('base64')}`,
      '-e',
      'DEMO_BOOTSTRAP=true',
      '-e',
      'PIPELINE_CONCURRENCY=1',
      '--health-interval',
      '2s',
      IMAGE,
    ]).trim();
    containers.push(id);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      '/health',
      () =>
        fetch(`${base}/health`).then(
          (r) => r.ok,
          () => false,
        ),
      120_000,
    );
    await waitFor(
      'the image health check',
      () => must('docker', ['inspect', '-f', '{{.State.Health.Status}}', id]).trim() === 'healthy',
      60_000,
    );
    const key = await waitFor('the demo key in the log', () => /live API key:\s+(\S+)/.exec(must('docker', ['logs', id]))?.[1], 30_000);
    // production: plain HTTP only through a TLS-terminating proxy, which says so in X-Forwarded-Proto
    const headers = { 'X-API-Key': key, 'X-Forwarded-Proto': 'https' };
    const deal = await fetch(`${base}/v1/deals`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ business_name: 'Docker Bakery LLC', funding_amount_requested: 40000 }),
    }).then((r) => r.json() as Promise<{ id: number }>);
    const files = ['nz-kowhai-tutorial.pdf', 'au-commbank-template-scan.pdf'];
    const ids: number[] = [];
    for (const name of files) {
      const form = new FormData();
      form.append('file', new Blob([readFileSync(join(DEVSET, name))], { type: 'application/pdf' }), name);
      const res = await fetch(`${base}/v1/deals/${deal.id}/documents`, { method: 'POST', headers, body: form });
      expect([200, 201]).toContain(res.status);
      ids.push(((await res.json()) as { id: number }).id);
    }
    for (const docId of ids) {
      const doc = await waitFor(
        `document ${docId} terminal`,
        async () => {
          const d = (await (await fetch(`${base}/v1/documents/${docId}`, { headers })).json()) as {
            status: string;
            transaction_count: number;
          };
          return ['completed', 'failed', 'needs_review'].includes(d.status) ? d : null;
        },
        300_000,
      );
      expect(doc.status).toBe('completed');
      expect(doc.transaction_count).toBeGreaterThan(0);
    }
  }, 600_000);

  it('reuses the dependency layer when only apps/ changes', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'ledgerlens-docker-context-'));
    try {
      // what docker/Dockerfile copies (tools/start: the web app's build script)
      for (const entry of [
        'package.json',
        'package-lock.json',
        'tsconfig.base.json',
        '.dockerignore',
        'docker',
        'apps',
        'packages',
        'tools/start',
      ]) {
        cpSync(join(ROOT, entry), join(copy, entry), {
          recursive: true,
          filter: (src) => !/\/(node_modules|dist|\.data)(\/|$)/.test(src),
        });
      }
      const main = join(copy, 'apps/api/src/main.ts');
      // a change no earlier build on this engine has seen: the engine's data root outlives a run,
      // so a fixed edit would find its own layers from the last run in the cache
      writeFileSync(main, `${readFileSync(main, 'utf8')}\n// a change under apps/: ${randomUUID()}\n`);
      const log = await build(copy, `${IMAGE}-changed`);
      // classic builder: every step prints "Step n/m : <instruction>" then " ---> Using cache" when reused
      const steps = log.split(/^Step \d+\/\d+ : /m).slice(1);
      const npmCi = steps.find((s) => s.startsWith('RUN npm ci'));
      const tsc = steps.find((s) => s.startsWith('RUN npx tsc'));
      expect(npmCi).toContain('Using cache');
      expect(tsc).not.toContain('Using cache');
    } finally {
      rmSync(copy, { recursive: true, force: true });
      run('docker', ['rmi', '-f', `${IMAGE}-changed`]);
    }
  }, 1_800_000);
});
