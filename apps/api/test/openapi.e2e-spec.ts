import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { emitOpenApi } from '../src/cli';

describe('openapi/openapi.json', () => {
  it('is exactly what the server emits (run `npm run openapi` after changing the API)', async () => {
    const committed = readFileSync(resolve(__dirname, '../../../openapi/openapi.json'), 'utf8');
    const emitted = JSON.stringify(await emitOpenApi(), null, 2) + '\n';
    expect(emitted).toBe(committed);
  });

  it('names every operation after its handler, uniquely', async () => {
    const doc = (await emitOpenApi()) as unknown as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
  });
});
