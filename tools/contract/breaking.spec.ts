import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { breakingChanges } from './breaking';

// two paths of the real contract (with every schema): the comparison's cost grows with the paths
const full = JSON.parse(readFileSync(resolve(__dirname, '../../openapi/openapi.json'), 'utf8'));
const contract = { ...full, paths: { '/v1/deals': full.paths['/v1/deals'], '/v1/deals/stats': full.paths['/v1/deals/stats'] } };
const copy = () => JSON.parse(JSON.stringify(contract));

describe('openapi breaking-change check', () => {
  it('finds no break between a document and itself, nor in an added operation or a new response field', () => {
    expect(breakingChanges(contract, copy())).toEqual([]);
    const added = copy();
    added.paths['/v1/brand-new'] = { get: { operationId: 'brandNew', responses: { 200: { description: 'ok' } } } };
    expect(breakingChanges(contract, added)).toEqual([]);
    const richer = copy();
    const summary = richer.components.schemas.DealSummaryDto;
    summary.properties.currency = { type: 'string' };
    summary.required = [...summary.required, 'currency'];
    expect(breakingChanges(contract, richer)).toEqual([]);
  });

  it('flags a removed operation, a new required parameter and a response field no longer required', () => {
    const after = copy();
    delete after.paths['/v1/deals/stats'];
    after.paths['/v1/deals'].get.parameters.find((p: { name: string }) => p.name === 'q').required = true;
    const summary = after.components.schemas.DealSummaryDto;
    summary.required = summary.required.filter((f: string) => f !== 'status');
    const found = breakingChanges(contract, after);
    const where = found.map((c) => c.path.slice(0, 3).join(' '));
    expect(where).toEqual(expect.arrayContaining(['paths /v1/deals/stats get', 'paths /v1/deals get']));
    expect(found.some((c) => c.description.includes('status'))).toBe(true);
    expect(found.every((c) => c.intended === null)).toBe(true);
  });

  it('accepts a break listed as intended, and only that one', () => {
    const after = copy();
    delete after.paths['/v1/deals/stats'];
    after.paths['/v1/deals'].get.parameters.find((p: { name: string }) => p.name === 'q').required = true;
    const reason = 'stats moved to /v1/usage';
    const found = breakingChanges(contract, after, [{ path: ['paths', '/v1/deals/stats'], reason }]);
    expect(found.filter((c) => c.intended).map((c) => c.intended!.reason)).toEqual([reason]);
    expect(found.filter((c) => !c.intended).length).toBeGreaterThan(0);
  });
});
