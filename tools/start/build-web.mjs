#!/usr/bin/env node
// Builds the web app (apps/web, Vite) into apps/web/dist when that output is missing or older
// than any of its sources (the app's own and packages/sdk's, which the app bundles from source),
// so `npm start` on a fresh clone serves /app and a warm start builds nothing. `--force` always
// builds. Run by tools/start/build-server.mjs and `npm run build`; progress goes to stderr.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const web = join(root, 'apps', 'web');
const output = join(web, 'dist', 'index.html');

const mtime = (path) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
};

function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return -1;
  }
  if (!stat.isDirectory()) return /\.spec\.tsx?$/.test(path) ? -1 : stat.mtimeMs;
  let max = -1;
  for (const entry of readdirSync(path)) max = Math.max(max, newest(join(path, entry)));
  return max;
}

/** True when apps/web/dist is missing or older than a source of the app. */
export function webStale() {
  const built = mtime(output);
  if (built < 0) return true;
  const sources = [
    join(web, 'src'),
    join(web, 'public'),
    join(web, 'index.html'),
    join(web, 'vite.config.ts'),
    join(web, 'package.json'),
    join(root, 'packages', 'sdk', 'src'),
  ];
  return sources.some((s) => newest(s) > built);
}

/** Builds the app when stale (or always with `force`); resolves false when Vite is not installed. */
export async function buildWeb({ force = false } = {}) {
  if (!force && !webStale()) return true;
  const started = performance.now();
  let vite;
  try {
    vite = await import('vite');
  } catch {
    process.stderr.write('web app not built: Vite is not installed (npm ci installs it); /app answers 503 until it is\n');
    return false;
  }
  process.stderr.write('building the web app ...\n');
  // React's production build whatever NODE_ENV the caller runs under (jest sets `test`, and Vite
  // keeps a NODE_ENV it finds: the browser tests measured React's development build)
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await vite.build({ configFile: join(web, 'vite.config.ts'), logLevel: 'warn', mode: 'production' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  process.stderr.write(`web app built in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const ok = await buildWeb({ force: process.argv.includes('--force') });
  process.exit(ok ? 0 : 1);
}
