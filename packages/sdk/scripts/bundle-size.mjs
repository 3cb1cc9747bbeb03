#!/usr/bin/env node
// `npm run bench:sdk-size`: what @ledgerlens/sdk adds to a browser bundle. Bundles the built ESM
// (packages/sdk/dist/esm, with its dependencies ky and eventsource-parser) with rolldown (Vite's
// bundler, already installed), minified and tree-shaken, for two entries:
//   minimal:    LedgerlensCore + DealsResource (a page that only lists and creates deals)
//   everything: every export of the package (the full `Ledgerlens` client)
// and prints the minified and gzipped sizes of each. Exits 1 when a gzipped size is over its
// budget (SDK_MINIMAL_BUDGET_KB, default 12; SDK_FULL_BUDGET_KB, default 18), 2 when the SDK is not
// built (`npm run -w @ledgerlens/sdk build`). `--json` prints the figures as JSON, with the
// modules each bundle kept (packages/sdk/src/bundle-size.spec.ts checks the tree-shaking with it).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { rolldown } from 'rolldown';

const sdk = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(sdk, 'dist/esm/index.js');
if (!existsSync(entry)) {
  console.error(`${entry} is missing: build the SDK first (npm run -w @ledgerlens/sdk build)`);
  process.exit(2);
}
const budgets = { minimal: Number(process.env.SDK_MINIMAL_BUDGET_KB ?? 12), everything: Number(process.env.SDK_FULL_BUDGET_KB ?? 18) };
const entries = {
  minimal: `import { LedgerlensCore, DealsResource } from ${JSON.stringify(entry)};
export function deals(baseUrl, apiKey) { return new DealsResource(new LedgerlensCore({ baseUrl, apiKey })); }`,
  everything: `export * from ${JSON.stringify(entry)};`,
};

/** Minified bytes and gzipped bytes of one entry, every chunk included (dynamic imports inlined). */
async function measure(source) {
  const dir = mkdtempSync(join(tmpdir(), 'sdk-size-'));
  try {
    const input = join(dir, 'entry.mjs');
    writeFileSync(input, source);
    const bundle = await rolldown({ input, platform: 'browser', treeshake: true, logLevel: 'silent' });
    const { output } = await bundle.generate({ format: 'esm', minify: true, codeSplitting: false });
    await bundle.close();
    const code = output.filter((o) => o.type === 'chunk').map((o) => o.code);
    const min = code.reduce((n, c) => n + Buffer.byteLength(c), 0);
    const gzip = code.reduce((n, c) => n + gzipSync(c, { level: 9 }).length, 0);
    return { min, gzip, modules: output.flatMap((o) => (o.type === 'chunk' ? Object.keys(o.modules) : [])) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const kb = (n) => (n / 1024).toFixed(1);
const results = {};
let over = false;
for (const [name, source] of Object.entries(entries)) {
  const { min, gzip, modules } = await measure(source);
  const kept = modules.map((m) => (m.startsWith(sdk) ? m.slice(sdk.length + 1) : m.replace(/^.*node_modules\//, ''))).sort();
  results[name] = { min_bytes: min, gzip_bytes: gzip, budget_gzip_kb: budgets[name], modules: kept };
  if (gzip > budgets[name] * 1024) over = true;
}
if (process.argv.includes('--json')) console.log(JSON.stringify(results));
else
  for (const [name, r] of Object.entries(results))
    console.log(
      `${name.padEnd(10)} ${kb(r.min_bytes).padStart(6)} KB min, ${kb(r.gzip_bytes).padStart(5)} KB gzip (budget ${r.budget_gzip_kb} KB gzip)`,
    );
if (over) {
  console.error('@ledgerlens/sdk is over its size budget');
  process.exit(1);
}
