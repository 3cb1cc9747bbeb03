import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';

// The import-boundaries rule of eslint.config.mjs (docs/architecture.md, "Layers"), run through
// ESLint's API on source text that is never written to disk: each case lints a file that does not
// exist, at a path inside the real tree, importing a real file. A new import against the layering
// fails; the known-debt allow-list lets through exactly the imports it names, and each is needed.
const root = resolve(__dirname, '../..');

interface BoundaryConfig {
  MODULE_ARROWS: Record<string, string[]>;
  KNOWN_DEBT: { from: string; to: string }[];
  boundaryPolicies(knownDebt?: { from: string; to: string }[]): unknown[];
}

let config: BoundaryConfig;
let eslint: ESLint;

beforeAll(async () => {
  config = (await import(pathToFileURL(resolve(root, 'eslint.config.mjs')).href)) as BoundaryConfig;
  eslint = new ESLint({ cwd: root });
});

/** The boundaries messages for `code` linted as if it were the file at `filePath`. */
async function boundaryErrors(filePath: string, code: string, linter = eslint): Promise<string[]> {
  const [result] = await linter.lintText(code, { filePath: resolve(root, filePath) });
  return result.messages.filter((m) => m.ruleId === 'boundaries/dependencies').map((m) => m.message);
}

const use = (names: string, from: string) => `import { ${names} } from '${from}';\nexport const used = [${names}];\n`;

describe('import boundaries (eslint-plugin-boundaries)', () => {
  it('fails a new import against the layering', async () => {
    // platform/* never imports modules/*
    expect(await boundaryErrors('apps/api/src/platform/clock/new.ts', use('Deal', '../../modules/deals/deals.entities'))).toEqual([
      expect.stringContaining('apps/api/src/platform may not import apps/api/src/modules/deals/deals.entities.ts'),
    ]);
    // a module imports another only along an allowed arrow: webhooks -> deals is not one
    expect(await boundaryErrors('apps/api/src/modules/webhooks/new.ts', use('Deal', '../deals/deals.entities'))).toEqual([
      expect.stringContaining('apps/api/src/modules/webhooks may not import apps/api/src/modules/deals/deals.entities.ts'),
    ]);
    // the known debt is allowed file to file: a new file of deals importing documents fails
    expect(await boundaryErrors('apps/api/src/modules/deals/new.ts', use('Document', '../documents/documents.entities'))).toEqual([
      expect.stringContaining('apps/api/src/modules/deals may not import apps/api/src/modules/documents/documents.entities.ts'),
    ]);
    // ...and so does an allow-listed file importing something else against the layering
    expect(
      await boundaryErrors('apps/api/src/modules/deals/deal-report.ts', use('DocumentProducer', '../processing/processing.producer')),
    ).toHaveLength(1);
    // packages/* never import apps/*, and the MIT packages never the AGPL ones, by path or by name
    expect(await boundaryErrors('packages/underwriting/src/new.ts', use('Clock', '../../../apps/api/src/platform/clock/clock'))).toEqual([
      expect.stringContaining('packages/underwriting may not import apps/api/src/platform/clock/clock.ts'),
    ]);
    expect(await boundaryErrors('packages/sdk/src/new.ts', use('parseBankStatement', '@ledgerlens/statements'))).toEqual([
      expect.stringContaining('MIT'),
    ]);
    expect(await boundaryErrors('packages/webhooks/src/new.ts', use('analyzeDeal', '../../underwriting/src/index'))).toHaveLength(1);
    // apps/web talks to the API only through the SDK: not the server's code, not the AGPL packages
    expect(await boundaryErrors('apps/web/src/new.tsx', use('AppModule', '../../api/src/app.module'))).toEqual([
      expect.stringContaining('apps/web may not import apps/api/src/app.module.ts'),
    ]);
    expect(await boundaryErrors('apps/web/src/new.ts', use('analyzeDeal', '@ledgerlens/underwriting'))).toEqual([
      expect.stringContaining('only through packages/sdk'),
    ]);
  }, 60000);

  it('lets through what the layering allows', async () => {
    expect(await boundaryErrors('apps/api/src/modules/rulesets/new.ts', use('Deal', '../deals/deals.entities'))).toEqual([]);
    expect(await boundaryErrors('apps/api/src/modules/deals/new.ts', use('paginate', '../../platform/pagination/pagination'))).toEqual([]);
    expect(await boundaryErrors('apps/api/src/modules/deals/new.ts', use('analyzeDeal', '@ledgerlens/underwriting'))).toEqual([]);
    expect(await boundaryErrors('apps/api/src/modules/deals/new.spec.ts', use('TestApp', '../../../test/support/harness'))).toEqual([]);
    expect(await boundaryErrors('packages/sdk/src/new.ts', use('Ledgerlens', './client'))).toEqual([]);
    expect(await boundaryErrors('apps/web/src/new.tsx', use('Ledgerlens', '../../../packages/sdk/src/index'))).toEqual([]);
    expect(await boundaryErrors('apps/web/src/new.tsx', use('ll', './api'))).toEqual([]);
  }, 60000);

  it('needs every known-debt entry: without the allow-list exactly its imports fail', async () => {
    const strict = new ESLint({
      cwd: root,
      overrideConfig: {
        files: ['**/*.ts'],
        rules: {
          'boundaries/dependencies': ['error', { default: 'disallow', checkAllOrigins: true, policies: config.boundaryPolicies([]) }],
        },
      },
    });
    const files = [...new Set(config.KNOWN_DEBT.map((d) => d.from))];
    const results = await strict.lintFiles(files.map((f) => resolve(root, f)));
    const failing = results.flatMap((r) => r.messages.filter((m) => m.ruleId === 'boundaries/dependencies').map(() => r.filePath));
    // one failing import per entry, from the entry's file
    expect(failing.map((f) => f.slice(root.length + 1)).sort()).toEqual(config.KNOWN_DEBT.map((d) => d.from).sort());
    // and with the allow-list they pass
    const allowed = await eslint.lintFiles(files.map((f) => resolve(root, f)));
    expect(allowed.flatMap((r) => r.messages.filter((m) => m.ruleId === 'boundaries/dependencies'))).toEqual([]);
  }, 60000);

  it('keeps the allowed arrows between modules acyclic', () => {
    const arrows = config.MODULE_ARROWS;
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (name: string, path: string[]): void => {
      if (state.get(name) === 'done') return;
      if (state.get(name) === 'visiting') throw new Error(`cycle in MODULE_ARROWS: ${[...path, name].join(' -> ')}`);
      state.set(name, 'visiting');
      for (const target of arrows[name] ?? []) visit(target, [...path, name]);
      state.set(name, 'done');
    };
    for (const name of Object.keys(arrows)) visit(name, []);
    // every module of apps/api/src/modules is in the table, and every target is a module
    const modules = readdirSync(resolve(root, 'apps/api/src/modules'), { withFileTypes: true }).filter((d) => d.isDirectory());
    expect(Object.keys(arrows).sort()).toEqual(modules.map((d) => d.name).sort());
    expect(
      Object.values(arrows)
        .flat()
        .every((target) => target in arrows),
    ).toBe(true);
  });
});
