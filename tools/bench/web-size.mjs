#!/usr/bin/env node
// `npm run bench:web`: the web app's initial JavaScript, what a browser downloads before the first
// screen (the entry script of apps/web/dist/index.html and the chunks it imports statically),
// gzipped. Exits 1 above the budget (250 KB; WEB_JS_BUDGET_KB to try another).
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = join(root, 'apps', 'web', 'dist');
const budgetKb = Number(process.env.WEB_JS_BUDGET_KB ?? 250);

const html = readFileSync(join(dist, 'index.html'), 'utf8');
const entries = [...html.matchAll(/<script[^>]+src="\/app\/([^"]+\.js)"/g)].map((m) => m[1]);
const preloads = [...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/app\/([^"]+\.js)"/g)].map((m) => m[1]);
if (entries.length === 0) {
  console.error('no entry script in apps/web/dist/index.html');
  process.exit(2);
}
// the entry and every chunk it imports statically (`import ... from "./x.js"` at the top level)
const seen = new Set();
const queue = [...entries, ...preloads];
while (queue.length) {
  const file = queue.shift();
  if (seen.has(file)) continue;
  seen.add(file);
  const code = readFileSync(join(dist, file), 'utf8');
  for (const m of code.matchAll(/(?:^|[;\n}])\s*import\s*(?:[\w*{}\s,$]+from\s*)?["']\.\/([^"']+\.js)["']/g)) queue.push(`assets/${m[1]}`);
}
let raw = 0;
let gzipped = 0;
const rows = [];
for (const file of seen) {
  const bytes = readFileSync(join(dist, file));
  const gz = gzipSync(bytes, { level: 9 }).length;
  raw += bytes.length;
  gzipped += gz;
  rows.push(`  ${file}: ${(bytes.length / 1024).toFixed(1)} KB, ${(gz / 1024).toFixed(1)} KB gzipped`);
}
const css = [...html.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="\/app\/([^"]+\.css)"/g)].map((m) => m[1]);
const cssGz = css.reduce((sum, f) => sum + gzipSync(readFileSync(join(dist, f)), { level: 9 }).length, 0);
console.log(rows.join('\n'));
console.log(
  `initial JS: ${(raw / 1024).toFixed(1)} KB, ${(gzipped / 1024).toFixed(1)} KB gzipped (budget ${budgetKb} KB); CSS ${(cssGz / 1024).toFixed(1)} KB gzipped`,
);
if (gzipped > budgetKb * 1024) {
  console.error(`over budget by ${((gzipped - budgetKb * 1024) / 1024).toFixed(1)} KB`);
  process.exit(1);
}
