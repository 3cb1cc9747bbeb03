#!/usr/bin/env node
// `npm run bench:web` (after web-size.mjs): the web app's speed with big deals, measured in
// headless Chromium against a real server on the embedded database by
// apps/api/test/web-perf.e2e-spec.ts (which seeds them: a deal of 12 statements and 2,004
// transactions, a statement of 10,000 rows), warm (after one untimed load), median of 3 loads:
//   - the deal page: navigation start to usable (recommendation and tables drawn), < 1000 ms
//   - the review page of 10,000 rows: to usable (first rows listed, the page drawn), < 3000 ms,
//     and to every row arrived, < 20000 ms; the rows in the DOM (< 200)
// Targets: WEB_DEAL_TARGET_MS, WEB_REVIEW_TARGET_MS, WEB_ROWS_TARGET_MS. Exits 1 when the spec
// fails (a figure above its target, or a check of what the figures stand for).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const figures = join(root, 'test-output', 'web', 'perf.json');
rmSync(figures, { force: true });
const jest = spawnSync(
  process.execPath,
  [join(root, 'node_modules', 'jest', 'bin', 'jest.js'), 'apps/api/test/web-perf.e2e-spec.ts', '--maxWorkers=1'],
  {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim() },
  },
);
if (!existsSync(figures)) {
  console.error('no figures: apps/api/test/web-perf.e2e-spec.ts did not run (is chromium installed?)');
  process.exit(2);
}
const f = JSON.parse(readFileSync(figures, 'utf8'));
const line = (name, value, unit, target) =>
  console.log(`${name.padEnd(52)} ${value === undefined ? '-' : `${value} ${unit}`}${target ? ` (target < ${target} ${unit})` : ''}`);
console.log('');
line('deal page, 12 statements / 2,004 rows: usable after', f.deal_page_ms, 'ms', process.env.WEB_DEAL_TARGET_MS ?? 1000);
line('review page, 10,000 rows: usable after', f.review_10k_ms, 'ms', process.env.WEB_REVIEW_TARGET_MS ?? 3000);
line('review page, 10,000 rows: every row arrived after', f.review_10k_all_rows_ms, 'ms', process.env.WEB_ROWS_TARGET_MS ?? 20000);
line('review page, 10,000 rows: rows in the DOM', f.review_10k_rows_in_dom, 'rows', 200);
process.exit(jest.status === 0 ? 0 : 1);
