#!/usr/bin/env node
// `npm start`'s build: the server and the packages it loads (apps/api, packages/statements,
// packages/underwriting, packages/webhooks) transpiled file by file with swc into the same
// dist/ folders `tsc -b` writes, without type checking (the test command and CI type-check).
// Only files whose source is newer than their output are transpiled again, so a warm start
// transpiles nothing. Progress goes to stderr so a first start never looks hung.
// Without a working swc binding it falls back to `tsc -b` for the server's project.
// Then the web app the server serves at /app (tools/start/build-web.mjs), when missing or stale.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { buildWeb } from './build-web.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const projects = ['packages/statements', 'packages/underwriting', 'packages/webhooks', 'apps/api'];

/** The compiler options the server is built with by tsc (tsconfig.base.json), as swc options. */
const swcOptions = (file) => ({
  filename: file,
  swcrc: false,
  configFile: false,
  sourceMaps: true,
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  // CommonJS like tsc's node20 output for a package without "type": "module"; dynamic import()
  // stays an import so ESM-only dependencies (mupdf) still load.
  module: { type: 'commonjs', ignoreDynamic: true, strict: false },
});

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.spec\.ts$|\.e2e-spec\.ts$|\.d\.ts$/.test(entry.name)) continue;
    else if (entry.name.endsWith('.ts') || entry.name.endsWith('.json')) yield path;
  }
}

const mtime = (path) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
};

function stale() {
  const out = [];
  for (const project of projects) {
    const src = join(root, project, 'src');
    const dist = join(root, project, 'dist');
    for (const file of sources(src)) {
      const target = join(dist, relative(src, file)).replace(/\.ts$/, '.js');
      if (mtime(target) < mtime(file)) out.push({ file, target });
    }
  }
  return out;
}

async function loadSwc() {
  try {
    const swc = await import('@swc/core');
    await swc.transform('export {}', { filename: 'probe.ts', swcrc: false, jsc: { parser: { syntax: 'typescript' } } });
    return swc;
  } catch {
    return null;
  }
}

const started = performance.now();
const todo = stale();
// the web app's build is independent of the server's; a failure leaves /app answering 503
const webBuilt = () => buildWeb().catch((err) => process.stderr.write(`web app build failed: ${err?.stack ?? err}\n`));
if (todo.length === 0) {
  await webBuilt();
  process.exit(0);
}
const log = (line) => process.stderr.write(`${line}\n`);
const swc = await loadSwc();
if (!swc) {
  log('building the server with tsc (no swc binding for this platform) ...');
  const res = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'apps/api/tsconfig.app.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  await webBuilt();
  process.exit(res.status ?? 1);
}
log(`building the server: ${todo.length} file${todo.length === 1 ? '' : 's'} to transpile ...`);
let done = 0;
let lastReport = performance.now();
const queue = [...todo];
async function worker() {
  for (let item = queue.shift(); item; item = queue.shift()) {
    mkdirSync(dirname(item.target), { recursive: true });
    if (item.file.endsWith('.json')) copyFileSync(item.file, item.target);
    else {
      const out = await swc.transformFile(item.file, swcOptions(item.file));
      const map = `${item.target}.map`;
      writeFileSync(item.target, `${out.code}\n//# sourceMappingURL=${map.slice(dirname(map).length + 1)}\n`);
      if (out.map) writeFileSync(map, out.map);
    }
    done++;
    if (performance.now() - lastReport > 1000) {
      lastReport = performance.now();
      log(`  ${done}/${todo.length} files`);
    }
  }
}
await Promise.all(Array.from({ length: 8 }, worker));
log(`built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
await webBuilt();
