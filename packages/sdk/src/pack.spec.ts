import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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
