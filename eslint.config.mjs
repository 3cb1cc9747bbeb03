// Lint for the whole workspace. typescript-eslint's recommended rules, three type-aware ones
// (floating and misused promises, switch exhaustiveness; see the typed block below) and the house
// rules of docs/architecture.md that a linter can check: no process.env outside platform/config,
// no console outside CLIs and tools, no focused tests, and the import boundaries
// (docs/architecture.md, "Layers"; tested by tools/lint/boundaries.spec.ts).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier/flat';
import boundaries from 'eslint-plugin-boundaries';

// ---- Import boundaries (eslint-plugin-boundaries) ----------------------------------------------
// Elements: the parts of the tree that the layering names. First match wins, so the narrow ones
// come first. Test files are outside the layering (see TEST_FILES below).
export const BOUNDARY_ELEMENTS = [
  { type: 'api-test', pattern: 'apps/api/test' },
  { type: 'platform', pattern: 'apps/api/src/platform' },
  { type: 'module', pattern: 'apps/api/src/modules/*', capture: ['name'] },
  { type: 'migrations', pattern: 'apps/api/src/migrations' },
  // main.ts, cli.ts, app.module.ts, app.factory.ts, entities.ts, openapi*.ts: the composition root
  { type: 'api-root', pattern: 'apps/api/src' },
  { type: 'api-other', pattern: 'apps/api' },
  // the web app: talks to the API only through packages/sdk
  { type: 'web', pattern: 'apps/web' },
  { type: 'package', pattern: 'packages/*', capture: ['name'] },
  { type: 'tools', pattern: 'tools' },
].map((element) => ({ ...element, partialMatch: false }));

const TEST_FILES = ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/*.medium-spec.ts', '**/*.scale-spec.ts', '**/*.docker-spec.ts'];

// The allowed arrows between the modules of apps/api/src/modules: a module may import the
// platform, the packages, itself, and the modules listed here, nothing else. The graph is acyclic
// (tools/lint/boundaries.spec.ts checks it); a new arrow is added here, and to the table in
// docs/architecture.md, only if it keeps it so.
export const MODULE_ARROWS = {
  keys: [],
  auth: ['keys'],
  rulesets: [],
  lenders: [],
  pipeline: ['rulesets', 'lenders'],
  webhooks: [],
  usage: [],
  stream: ['pipeline', 'webhooks'],
  crm: ['pipeline'],
  shares: ['pipeline'],
  collaboration: ['auth', 'keys', 'pipeline'],
  exports: ['pipeline'],
  ingest: ['pipeline', 'webhooks'],
};

// The pipeline's repositories and entities are its own: every other module goes through its
// services (or its events) and reads its records as the read-only types of pipeline/records.ts, so
// each query and each change of a deal, document or transaction is written, and scoped, in one place.
export const PIPELINE_PRIVATE = 'apps/api/src/modules/pipeline/{repositories,entities}/**';

// Imports against the layering allowed file by file, each with its reason. The pipeline-module
// redesign (issue 29) removed the last ones; an entry is added only with a reason and an issue.
export const KNOWN_DEBT = [];

const BOUNDARY_MESSAGE =
  'Import against the layering: {{from.element.path}} may not import {{to.element.filePath}} ' +
  '(the allowed arrows: docs/architecture.md, "Layers", and MODULE_ARROWS in eslint.config.mjs).';
const local = { module: { origin: 'local' } };
/** The policies of `boundaries/dependencies` (last match wins; nothing matched is disallowed). */
export const boundaryPolicies = (knownDebt = KNOWN_DEBT) => [
  // Anyone may use npm packages and node built-ins (checkAllOrigins: the @ledgerlens/* names are
  // checked below by their source).
  { allow: { to: { module: { origin: ['external', 'core'] } } } },
  // Tests, the e2e harness and the tools are outside the layering.
  { from: { file: { categories: 'test' } }, allow: { to: local } },
  { from: { element: { types: ['api-test', 'tools', 'api-other'] } }, allow: { to: local } },
  // The composition root wires everything; the platform and the migrations sit at the bottom.
  { from: { element: { type: 'api-root' } }, allow: { to: { element: { types: ['platform', 'module', 'migrations', 'package'] } } } },
  { from: { element: { type: 'platform' } }, allow: { to: { element: { types: ['migrations', 'package'] } } } },
  { from: { element: { type: 'module' } }, allow: { to: { element: { types: ['platform', 'package'] } } } },
  // module -> module along MODULE_ARROWS only
  ...Object.entries(MODULE_ARROWS)
    .filter(([, targets]) => targets.length > 0)
    .map(([name, targets]) => ({
      from: { element: { type: 'module', captured: { name } } },
      allow: { to: { element: { type: 'module', captured: { name: targets.length === 1 ? targets[0] : `{${targets.join(',')}}` } } } },
    })),
  ...knownDebt.map(({ from, to }) => ({ from: { file: { path: from } }, allow: { to: { file: { path: to } } } })),
  // apps/web: its own files and packages/sdk, nothing of the server or the AGPL packages
  { from: { element: { type: 'web' } }, allow: { to: { element: { types: ['web'] } } } },
  { from: { element: { type: 'web' } }, allow: { to: { element: { type: 'package', captured: { name: 'sdk' } } } } },
  {
    from: { element: { type: 'web' } },
    disallow: { dependency: { source: '@ledgerlens/{api,statements,underwriting,webhooks}{,/**}' } },
    message: 'apps/web talks to the API only through packages/sdk (README, "The web app").',
  },
  {
    from: {
      element: {
        type: 'module',
        captured: {
          name: `{${Object.keys(MODULE_ARROWS)
            .filter((m) => m !== 'pipeline')
            .join(',')}}`,
        },
      },
    },
    disallow: { to: { file: { path: PIPELINE_PRIVATE } } },
    message:
      '{{from.element.path}} may not use the pipeline\'s repositories or entities: use its services and pipeline/records.ts (docs/architecture.md, "Layers").',
  },
  // packages/*: never apps/ or tools/ (only the workspace's own test files reach into them); the
  // MIT packages (sdk, webhooks) never the AGPL ones (statements, underwriting), by path or by name.
  {
    from: { element: { type: 'package' } },
    disallow: { dependency: { source: '@ledgerlens/api{,/**}' } },
    message: 'packages/* never import apps/* (docs/architecture.md, "Layers").',
  },
  {
    from: { element: { type: 'package', captured: { name: '{sdk,webhooks}' } } },
    disallow: { dependency: { source: '@ledgerlens/{statements,underwriting}{,/**}' } },
    message: 'packages/sdk and packages/webhooks are MIT: they import nothing from the AGPL packages (docs/architecture.md, "Layers").',
  },
];

// The type-aware rules (issue 29), run on the typed programs of the block below.
export const TYPE_AWARE_RULES = {
  '@typescript-eslint/no-floating-promises': 'error',
  '@typescript-eslint/no-misused-promises': 'error',
  // A `default:` is an explicit choice ("every other event type"), so it counts as exhaustive;
  // what the rule catches is a switch over a union with neither every case nor a default, and
  // a switch over a plain string or number without a default.
  '@typescript-eslint/switch-exhaustiveness-check': [
    'error',
    { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: true },
  ],
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'tools/corpus/out/**', 'packages/sdk/src/schema.d.ts', 'coverage/**', '.nx/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        __dirname: 'readonly',
        require: 'readonly',
        module: 'writable',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        fetch: 'readonly',
        structuredClone: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-require-imports': 'off',
      'no-console': 'error',
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration through platform/config (docs/architecture.md: nothing else reads process.env).',
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name=/^(it|describe|test)$/][callee.property.name='only']",
          message: 'Focused tests must not be committed.',
        },
      ],
    },
  },
  {
    // Type-aware rules (issue 29): a promise is awaited, handled or deliberately `void`ed, never
    // dropped; no promise where a callback's result is ignored; a switch over a union names every
    // member. One program for the Node side (tsconfig.eslint.json: apps/api, packages, tools,
    // resolving @ledgerlens/* to their sources so no build is needed) and the web app's own.
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.eslint.json', './apps/web/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: TYPE_AWARE_RULES,
  },
  {
    // Where reading the environment or printing is the point: config, CLIs, tools, test setup.
    files: [
      'apps/api/src/platform/config/**',
      'apps/api/src/cli.ts',
      'apps/api/src/main.ts',
      'tools/**',
      'apps/api/test/**',
      '**/*.spec.ts',
      'packages/statements/src/cli.ts',
      '**/*.{js,mjs,cjs}',
    ],
    rules: { 'no-restricted-properties': 'off', 'no-console': 'off' },
  },
  {
    // The pipeline's layers: only its repositories (and entities) speak to the ORM; services,
    // controllers and mappers hand a UnitOfWork to repositories (docs/architecture.md, "Layers").
    files: ['apps/api/src/modules/pipeline/{services,controllers,mappers,dto}/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@mikro-orm/*'],
              message: 'Only repositories use the ORM: add a repository method (docs/architecture.md, "Layers").',
            },
            {
              group: ['**/platform/database/unit-of-work'],
              importNames: ['entityManagerOf'],
              message: 'A unit of work\'s entity manager is for repositories only (docs/architecture.md, "Layers").',
            },
          ],
        },
      ],
    },
  },
  {
    // The underwriting math, the pipeline and the statement table reader read as named steps, each
    // short enough to follow (docs/architecture.md, "Where each rule lives"). Tests are outside it.
    files: ['packages/underwriting/src/**/*.ts', 'apps/api/src/modules/pipeline/**/*.ts', 'packages/statements/src/bank-parser.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }] },
  },
  {
    files: ['apps/**/*.{ts,tsx,js,mjs,cjs}', 'packages/**/*.{ts,js,mjs,cjs}', 'tools/**/*.{ts,js,mjs,cjs}'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': BOUNDARY_ELEMENTS,
      'boundaries/files': [{ category: 'test', pattern: TEST_FILES }],
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import', 'require'],
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] } },
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          checkAllOrigins: true,
          policies: boundaryPolicies(),
          message: BOUNDARY_MESSAGE,
        },
      ],
    },
  },
);
