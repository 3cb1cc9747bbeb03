import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { emitOpenApi } from '../src/cli';

describe('openapi/openapi.json', () => {
  it('is exactly what the server emits (run `npm run openapi` after changing the API)', async () => {
    const committed = readFileSync(resolve(__dirname, '../../../openapi/openapi.json'), 'utf8');
    const emitted = JSON.stringify(await emitOpenApi(), null, 2) + '\n';
    expect(emitted).toBe(committed);
  });

  it('lists null among the values of every nullable enum (a validator reads enum before nullable: a null it does not list fails)', () => {
    const doc = JSON.parse(readFileSync(resolve(__dirname, '../../../openapi/openapi.json'), 'utf8')) as unknown;
    const missing: string[] = [];
    const walk = (o: unknown, at: string): void => {
      if (!o || typeof o !== 'object') return;
      const s = o as { nullable?: boolean; enum?: unknown[] };
      if (s.nullable === true && Array.isArray(s.enum) && !s.enum.includes(null)) missing.push(at);
      for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
    };
    walk(doc, '');
    expect(missing).toEqual([]);
  });

  it('names every operation after its handler, uniquely', async () => {
    const doc = (await emitOpenApi()) as unknown as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
  });
});

/**
 * The report contract is typed all the way down: every object reachable from the deal report,
 * the document detail and the recommendation is a named schema with declared properties (or a
 * map whose values are themselves typed), never `additionalProperties: true` or a bare object.
 */
describe('openapi/openapi.json: typed report objects', () => {
  type Schema = Record<string, any>;
  const doc = JSON.parse(readFileSync(resolve(__dirname, '../../../openapi/openapi.json'), 'utf8')) as {
    components: { schemas: Record<string, Schema> };
  };
  const schemas = doc.components.schemas;

  /** Problems found walking from `root`, with the path that leads to each. */
  function untyped(root: string): string[] {
    const problems: string[] = [];
    const seen = new Set<string>();
    const walk = (s: Schema | undefined, path: string): void => {
      if (!s || typeof s !== 'object') return problems.push(`${path}: no schema`) as unknown as void;
      if (s.$ref) {
        const name = String(s.$ref).replace('#/components/schemas/', '');
        if (!schemas[name]) return problems.push(`${path}: dangling $ref ${s.$ref}`) as unknown as void;
        if (seen.has(name)) return;
        seen.add(name);
        return walk(schemas[name], name);
      }
      for (const key of ['allOf', 'oneOf', 'anyOf'] as const)
        (s[key] ?? []).forEach((x: Schema, i: number) => walk(x, `${path}.${key}[${i}]`));
      if (s.additionalProperties === true) problems.push(`${path}: additionalProperties: true`);
      else if (s.additionalProperties && typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${path}{*}`);
      if (s.type === 'object' && !s.properties && !s.additionalProperties && !s.allOf) problems.push(`${path}: object without properties`);
      if (s.type === 'array') walk(s.items, `${path}[]`);
      for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) walk(v, `${path}.${k}`);
    };
    walk({ $ref: `#/components/schemas/${root}` }, root);
    return problems;
  }

  it.each(['DealDetailDto', 'DocumentDetailDto', 'AnalysisRecordDto', 'RecommendationDto', 'EvaluationResultDto'])(
    '%s has no untyped object',
    (root) => {
      expect(untyped(root)).toEqual([]);
    },
  );

  it('the walker catches an untyped map and a bare object', () => {
    schemas.__Probe = {
      type: 'object',
      properties: {
        loose: { type: 'object', additionalProperties: true },
        bare: { type: 'object' },
        ok: { $ref: '#/components/schemas/ScreeningBucketsDto' },
      },
    };
    try {
      expect(untyped('__Probe')).toEqual(['__Probe.loose: additionalProperties: true', '__Probe.bare: object without properties']);
    } finally {
      delete schemas.__Probe;
    }
  });

  it('the deal report names its sections as schemas', () => {
    const props = schemas.DealDetailDto.properties as Record<string, Schema>;
    const refOf = (p: Schema) => p.$ref ?? p.allOf?.[0]?.$ref ?? p.items?.$ref;
    expect(
      Object.fromEntries(
        [
          'authenticity',
          'review',
          'currency',
          'cross_doc',
          'statements',
          'monthly',
          'daily_balances',
          'lender_positions',
          'nsf_events',
          'revenue_sources',
          'related_deals',
          'financials',
          'screening',
          'health',
          'recommendation',
        ].map((k) => [k, refOf(props[k])]),
      ),
    ).toEqual({
      authenticity: '#/components/schemas/AuthenticityDto',
      review: '#/components/schemas/ReviewDto',
      currency: '#/components/schemas/CurrencySummaryDto',
      cross_doc: '#/components/schemas/CrossDocDto',
      statements: '#/components/schemas/StatementRowDto',
      monthly: '#/components/schemas/MonthSummaryDto',
      daily_balances: '#/components/schemas/DailyBalanceDto',
      lender_positions: '#/components/schemas/LenderPositionsDto',
      nsf_events: '#/components/schemas/FeeEventDto',
      revenue_sources: '#/components/schemas/RevenueSourceDto',
      related_deals: '#/components/schemas/RelatedDealFindingDto',
      financials: '#/components/schemas/FinancialsDto',
      screening: '#/components/schemas/ScreeningDto',
      health: '#/components/schemas/HealthDto',
      recommendation: '#/components/schemas/ReportRecommendationDto',
    });
  });
});
