// Lint for the whole workspace. Syntax-level typescript-eslint rules (fast enough for CI on
// two cores) plus the house rules of ARCHITECTURE.md/STYLE.md that a linter can check:
// no process.env outside platform/config, no console outside CLIs and tools, no focused tests.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier/flat';

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
          message: 'Read configuration through platform/config (ARCHITECTURE.md: nothing else reads process.env).',
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
);
