// After `tsc` has emitted dist/cjs and dist/esm: copies the generated contract types (a .d.ts that
// tsc does not emit) into both, and marks each folder's module format for Node.js and, for
// bundlers, that its modules have no side effects (the nearest package.json is the one they read).
import { copyFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
for (const [dir, type] of [
  ['dist/cjs', 'commonjs'],
  ['dist/esm', 'module'],
]) {
  copyFileSync(resolve(root, 'src/schema.d.ts'), resolve(root, dir, 'schema.d.ts'));
  writeFileSync(resolve(root, dir, 'package.json'), JSON.stringify({ type, sideEffects: false }) + '\n');
}
