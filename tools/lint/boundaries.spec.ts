import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';

// The import-boundaries rule of eslint.config.mjs (docs/architecture.md, "Layers"), run through
// ESLint's API on source text that is never written to disk: each case lints a file that does not
// exist, at a path inside the real tree, importing a real file. A new import against the layering
// fails, a module reaching into the pipeline's repositories fails, and no known debt is left.
const root = resolve(__dirname, '../..');

interface BoundaryConfig {
  MODULE_ARROWS: Record<string, string[]>;
  KNOWN_DEBT: { from: string; to: string }[];
  boundaryPolicies(knownDebt?: { from: string; to: string }[]): unknown[];
  TYPE_AWARE_RULES: Record<string, unknown>;
}

let config: BoundaryConfig;
let eslint: ESLint;

beforeAll(async () => {
  config = (await import(pathToFileURL(resolve(root, 'eslint.config.mjs')).href)) as BoundaryConfig;
  // The files linted here do not exist, so no typed program holds them: they are parsed without
  // one, and the type-aware rules (which need it) are off; the boundaries rule needs no types.
  eslint = new ESLint({
    cwd: root,
    overrideConfig: {
      files: ['**/*.ts', '**/*.tsx'],
      languageOptions: { parserOptions: { project: false } },
      rules: Object.fromEntries(Object.keys(config.TYPE_AWARE_RULES).map((rule) => [rule, 'off'])),
    },
  });
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
    expect(
      await boundaryErrors('apps/api/src/platform/clock/new.ts', use('Deal', '../../modules/pipeline/entities/deal.entities')),
    ).toEqual([expect.stringContaining('apps/api/src/platform may not import apps/api/src/modules/pipeline/entities/deal.entities.ts')]);
    // a module imports another only along an allowed arrow: webhooks -> pipeline is not one
    expect(await boundaryErrors('apps/api/src/modules/webhooks/new.ts', use('DealsService', '../pipeline/services/deals.service'))).toEqual(
      [expect.stringContaining('apps/api/src/modules/webhooks may not import apps/api/src/modules/pipeline/services/deals.service.ts')],
    );
    // nor rulesets -> pipeline: the pipeline uses rulesets, so that arrow would make a cycle
    expect(await boundaryErrors('apps/api/src/modules/rulesets/new.ts', use('DealsService', '../pipeline/services/deals.service'))).toEqual(
      [expect.stringContaining('apps/api/src/modules/rulesets may not import apps/api/src/modules/pipeline/services/deals.service.ts')],
    );
    // the pipeline's repositories are its own, even for a module allowed to use the pipeline
    expect(
      await boundaryErrors('apps/api/src/modules/crm/new.ts', use('DealRepository', '../pipeline/repositories/deal.repository')),
    ).toEqual([expect.stringContaining("may not use the pipeline's repositories")]);
    // nor its entities: other modules read its records through pipeline/records.ts
    expect(await boundaryErrors('apps/api/src/modules/shares/new.ts', use('Deal', '../pipeline/entities/deal.entities'))).toEqual([
      expect.stringContaining("may not use the pipeline's repositories or entities"),
    ]);
    expect(await boundaryErrors('apps/api/src/modules/shares/new.ts', use('DealRecord', '../pipeline/records'))).toEqual([]);
    // the platform no longer reaches the composition root (modules register their entities)
    expect(await boundaryErrors('apps/api/src/platform/database/new.ts', use('ENTITIES', '../../entities'))).toHaveLength(1);
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

  it("keeps the ORM inside the pipeline's repositories", async () => {
    const restricted = async (filePath: string, code: string) =>
      (await eslint.lintText(code, { filePath: resolve(root, filePath) }))[0].messages.filter((m) => m.ruleId === 'no-restricted-imports');
    expect(await restricted('apps/api/src/modules/pipeline/services/new.ts', use('LockMode', '@mikro-orm/core'))).toHaveLength(1);
    expect(
      await restricted('apps/api/src/modules/pipeline/services/new.ts', use('entityManagerOf', '../../../platform/database/unit-of-work')),
    ).toHaveLength(1);
    expect(
      await restricted('apps/api/src/modules/pipeline/services/new.ts', use('UnitOfWork', '../../../platform/database/unit-of-work')),
    ).toEqual([]);
    expect(await restricted('apps/api/src/modules/pipeline/repositories/new.ts', use('LockMode', '@mikro-orm/core'))).toEqual([]);
  }, 60000);

  it('lets through what the layering allows', async () => {
    expect(await boundaryErrors('apps/api/src/modules/crm/new.ts', use('DealsService', '../pipeline/services/deals.service'))).toEqual([]);
    expect(await boundaryErrors('apps/api/src/modules/pipeline/new.ts', use('RulesetsService', '../rulesets/rulesets.service'))).toEqual(
      [],
    );
    expect(
      await boundaryErrors('apps/api/src/modules/pipeline/services/new.ts', use('DealRepository', '../repositories/deal.repository')),
    ).toEqual([]);
    expect(await boundaryErrors('apps/api/src/modules/pipeline/new.ts', use('paginate', '../../platform/pagination/pagination'))).toEqual(
      [],
    );
    expect(await boundaryErrors('apps/api/src/modules/pipeline/new.ts', use('analyzeDeal', '@ledgerlens/underwriting'))).toEqual([]);
    expect(await boundaryErrors('apps/api/src/modules/pipeline/new.spec.ts', use('TestApp', '../../../test/support/harness'))).toEqual([]);
    expect(await boundaryErrors('packages/sdk/src/new.ts', use('Ledgerlens', './client'))).toEqual([]);
    expect(await boundaryErrors('apps/web/src/new.tsx', use('Ledgerlens', '../../../packages/sdk/src/index'))).toEqual([]);
    expect(await boundaryErrors('apps/web/src/new.tsx', use('ll', './api'))).toEqual([]);
  }, 60000);

  it('has no known debt left: no import against the layering is allowed', () => {
    // issue 29 removed the last entries; the lint runs with no allow-list at all
    expect(config.KNOWN_DEBT).toEqual([]);
    expect(config.boundaryPolicies()).toEqual(config.boundaryPolicies([]));
  });

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
