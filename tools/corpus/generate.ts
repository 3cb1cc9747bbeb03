/**
 * Writes the corpus to tools/corpus/out (git-ignored), deterministically from a seed.
 * usage: node tools/dist/corpus/generate.js [--seed N] [--out DIR] [--small]
 */
import * as fs from 'fs';
import * as path from 'path';
import { buildCorpus } from './corpus';

async function main() {
  const args = process.argv.slice(2);
  const get = (k: string) => {
    const i = args.indexOf(k);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const seed = Number(get('--seed') ?? 1);
  const out = path.resolve(get('--out') ?? path.join(__dirname, '..', '..', 'corpus', 'out'));
  const small = args.includes('--small');
  fs.mkdirSync(out, { recursive: true });
  const sizes = small ? [8, 60] : [5, 40, 150, 600, 2000];
  let count = 0;
  for await (const item of buildCorpus({ seed, sizes, scans: small ? 2 : 6, others: true, hostile: true })) {
    fs.writeFileSync(path.join(out, `${item.name}.${item.ext}`), item.bytes);
    fs.writeFileSync(path.join(out, `${item.name}.json`), JSON.stringify(item.truth, null, 1));
    count++;
  }
  console.log(`wrote ${count} files (+ ground truth JSON) to ${out}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
