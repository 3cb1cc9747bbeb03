import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { TestApp } from '../../../apps/api/test/support/harness';

const run = promisify(execFile);
const sdkDir = resolve(__dirname, '..');
const repo = resolve(sdkDir, '../..');

/**
 * The SDK as an integrator gets it: `npm pack`, installed from the tarball into an empty project
 * (offline: its two dependencies come from this workspace), then used from ESM, from CommonJS and from TypeScript
 * (nodenext) against a running server.
 */
describe('@ledgerlens/sdk packed and installed', () => {
  let app: TestApp;
  let apiKey: string;
  let project: string;

  beforeAll(async () => {
    app = await TestApp.start();
    apiKey = (await app.newOrg('SDK Pack Org')).api_key;
    project = mkdtempSync(join(tmpdir(), 'sdk-consumer-'));
    await run('npm', ['pack', '--silent', '--pack-destination', project], { cwd: sdkDir });
    const tarball = readdirSync(project).find((f) => f.endsWith('.tgz'))!;
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    await run(
      'npm',
      [
        'install',
        '--offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--install-links',
        `./${tarball}`,
        join(repo, 'node_modules/eventsource-parser'),
        join(repo, 'node_modules/ky'),
      ],
      { cwd: project },
    );
  }, 240_000);
  afterAll(async () => {
    await app?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  const script = (flavour: 'esm' | 'cjs') => `
${flavour === 'esm' ? "import { Ledgerlens, LedgerlensError, OPERATIONS } from '@ledgerlens/sdk';" : "const { Ledgerlens, LedgerlensError, OPERATIONS } = require('@ledgerlens/sdk');"}
const main = async () => {
  const ll = new Ledgerlens({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
  const deal = await ll.deals.create({ business_name: 'Packed ${flavour} LLC', funding_amount_requested: 1000 });
  const doc = await ll.documents.upload(deal.id, Buffer.from('%PDF-1.4 not a statement'), { filename: '${flavour}.pdf' });
  const names = [];
  for await (const d of ll.deals.listAll({ q: 'Packed ${flavour}' })) names.push(d.business_name);
  const missing = await ll.deals.get(987654321).catch((e) => e);
  console.log(JSON.stringify({
    names, filename: doc.filename, operations: Object.keys(OPERATIONS).length,
    notFound: missing instanceof LedgerlensError ? missing.code : String(missing),
  }));
};
main().catch((e) => { console.error(e); process.exit(1); });
`;

  it('ships two pinned dependencies (ky, its one HTTP and retry layer, and the SSE parser) and its changelog', () => {
    const installed = JSON.parse(readFileSync(join(project, 'node_modules/@ledgerlens/sdk/package.json'), 'utf8'));
    expect(installed.dependencies).toEqual({
      'eventsource-parser': expect.stringMatching(/^\d+\.\d+\.\d+$/),
      ky: expect.stringMatching(/^\d+\.\d+\.\d+$/),
    });
    expect(existsSync(join(project, 'node_modules/@ledgerlens/sdk/CHANGELOG.md'))).toBe(true);
  });

  it.each(['esm', 'cjs'] as const)('works from %s', async (flavour) => {
    const file = join(project, flavour === 'esm' ? 'main.mjs' : 'main.cjs');
    writeFileSync(file, script(flavour));
    const { stdout } = await run(process.execPath, [file], { cwd: project, env: { ...process.env, BASE_URL: app.url, API_KEY: apiKey } });
    expect(JSON.parse(stdout)).toEqual({
      names: [`Packed ${flavour} LLC`],
      filename: `${flavour}.pdf`,
      operations: expect.any(Number),
      notFound: 'DEAL_NOT_FOUND',
    });
  });

  it('type-checks in a TypeScript project (nodenext, ESM and CommonJS files)', async () => {
    const body = `
const ll = new Ledgerlens({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' });
export async function use(dealId: number): Promise<string> {
  const deal: Deal = await ll.deals.waitUntilReady(dealId, { timeoutMs: 1000 });
  const doc = await ll.documents.upload(dealId, new Uint8Array([1]), { documentType: 'bank_statement' });
  for await (const t of ll.transactions.listAllForDeal(dealId, { flagged: true })) t.amount.toFixed(2);
  // @ts-expect-error a path parameter is required for this list
  ll.paginate('/v1/deals/{deal_id}/transactions');
  return deal.business_name + doc.filename;
}
`;
    writeFileSync(join(project, 'a.mts'), `import { Ledgerlens, type Deal } from '@ledgerlens/sdk';\n${body}`);
    writeFileSync(join(project, 'b.cts'), `import { Ledgerlens, type Deal } from '@ledgerlens/sdk';\n${body}`);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          types: ['node'],
          typeRoots: [join(repo, 'node_modules/@types')],
        },
        files: ['a.mts', 'b.cts'],
      }),
    );
    const tsc = join(repo, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', project]).catch((e: { stdout: string }) => e);
    expect((result as { stdout: string }).stdout).toBe('');
  }, 120_000);
});

/** What npm would publish: only the build, README, licence and changelog; the metadata a registry page needs. */
describe.each(['sdk', 'webhooks'])('@ledgerlens/%s is publishable', (name) => {
  const dir = resolve(repo, 'packages', name);
  const manifest = () => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  let packed: { path: string }[];

  beforeAll(async () => {
    await run('npm', ['run', '-s', 'build'], { cwd: dir });
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir });
    packed = JSON.parse(stdout)[0].files;
  }, 180_000);

  it('ships the build, README, LICENSE and CHANGELOG.md only: no sources, tests, fixtures or their maps', () => {
    const paths = packed.map((f) => f.path);
    expect(paths.filter((p) => !/^(dist\/.+\.(js|d\.ts|js\.map|json)|README\.md|LICENSE|CHANGELOG\.md|package\.json)$/.test(p))).toEqual(
      [],
    );
    expect(paths.filter((p) => /spec|__fixtures__|\.tsbuildinfo|^src\//.test(p))).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json']));
    // every target of the exports map is in the tarball
    const targets = JSON.stringify(manifest().exports)
      .match(/"\.\/dist\/[^"]+"/g)!
      .map((t) => t.slice(3, -1));
    expect(targets.length).toBeGreaterThan(0);
    for (const t of targets) expect(paths).toContain(t);
  });

  it('declares licence, repository, engines, exports and public publishing with provenance', () => {
    const m = manifest();
    expect(m).toMatchObject({
      license: 'MIT',
      repository: { type: 'git', url: expect.stringMatching(/^git\+https:\/\//), directory: `packages/${name}` },
      engines: { node: '>=20.19' },
      sideEffects: false,
      publishConfig: { access: 'public', provenance: true },
      exports: { '.': expect.any(Object), './package.json': './package.json' },
    });
    expect(m.files).toEqual(expect.arrayContaining(['dist', 'CHANGELOG.md']));
    // pinned dependencies only, none of them AGPL server code
    for (const [dep, version] of Object.entries((m.dependencies ?? {}) as Record<string, string>)) {
      expect(version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(dep).not.toMatch(/^@ledgerlens\/(statements|underwriting)$|^mupdf$/);
    }
  });

  it('npm publish --dry-run accepts it (against an unreachable loopback registry: nothing leaves the machine)', async () => {
    const { stdout } = await run('npm', ['publish', '--dry-run', '--json', '--ignore-scripts', '--registry', 'http://127.0.0.1:9/'], {
      cwd: dir,
    });
    const result = JSON.parse(stdout)[`@ledgerlens/${name}`];
    expect(result.files.map((f: { path: string }) => f.path).sort()).toEqual(packed.map((f) => f.path).sort());
  }, 120_000);
});

/** tools/release/release.mjs on a copy of the two packages: versions, SDK_VERSION and changelogs bumped, nothing published. */
describe('the release script', () => {
  it('bumps both packages and moves Unreleased under the new version, without publishing', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'release-'));
    try {
      for (const name of ['sdk', 'webhooks']) {
        mkdirSync(join(copy, 'packages', name, 'src'), { recursive: true });
        for (const f of ['package.json', 'CHANGELOG.md']) cpSync(join(repo, 'packages', name, f), join(copy, 'packages', name, f));
      }
      cpSync(join(sdkDir, 'src/version.ts'), join(copy, 'packages/sdk/src/version.ts'));
      const before = JSON.parse(readFileSync(join(sdkDir, 'package.json'), 'utf8')).version as string;
      const [major, minor] = before.split('.').map(Number);
      const next = `${major}.${minor + 1}.0`;
      const script = join(repo, 'tools/release/release.mjs');
      const { stdout } = await run(process.execPath, [script, 'minor', '--root', copy, '--skip-checks', '--date', '2026-12-01']);
      expect(stdout).toContain(`${before} -> ${next}`);
      expect(stdout).toContain('not published');
      for (const name of ['sdk', 'webhooks']) {
        expect(JSON.parse(readFileSync(join(copy, 'packages', name, 'package.json'), 'utf8')).version).toBe(next);
        const log = readFileSync(join(copy, 'packages', name, 'CHANGELOG.md'), 'utf8');
        expect(log).toMatch(new RegExp(`## Unreleased\\n\\n## ${next.replace(/\./g, '\\.')} \\(2026-12-01\\)\\n`));
      }
      expect(readFileSync(join(copy, 'packages/sdk/src/version.ts'), 'utf8')).toContain(`SDK_VERSION = '${next}'`);
      // an empty Unreleased section refuses a second release
      const again = await run(process.execPath, [script, 'patch', '--root', copy, '--skip-checks']).catch((e: { stderr: string }) => e);
      expect((again as { stderr: string }).stderr).toContain('no entries under "## Unreleased"');
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
