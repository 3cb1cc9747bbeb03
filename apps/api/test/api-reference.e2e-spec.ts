import { TestApp } from './support/harness';
import { OpenApiValidator } from './support/openapi-validator';

type Media = { schema?: unknown; example?: unknown };
type Operation = {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  requestBody?: { content?: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};
type Doc = {
  info: { description?: string };
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, any>> };
};

/**
 * The API reference as an integrator reads it at /docs: the document the server serves, every
 * operation explained and tagged, with a realistic example request (for a JSON body) and a 2xx
 * example answer that conform to their schemas; the guide; the security schemes.
 */
describe('API reference (/docs)', () => {
  let app: TestApp;
  let doc: Doc;
  let validator: OpenApiValidator;
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));
  /** A path the validator can match: every parameter filled in. */
  const concrete = (template: string) => template.replace(/\{[^}]+\}/g, '1');

  beforeAll(async () => {
    app = await TestApp.start();
    const res = await fetch(`${app.url}/docs/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Doc;
    validator = new OpenApiValidator(doc);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('serves every operation of the committed document', () => {
    expect(operations().length).toBeGreaterThanOrEqual(107);
  });

  it('gives every operation a summary, a description and a declared tag', () => {
    const declared = new Set((doc.tags ?? []).map((t) => t.name));
    const problems = operations().flatMap(({ op }) => [
      ...((op.summary ?? '').trim().length >= 6 ? [] : [`${op.operationId}: summary "${op.summary ?? ''}"`]),
      ...((op.description ?? '').trim().length > 20 ? [] : [`${op.operationId}: description "${op.description ?? ''}"`]),
      ...((op.tags ?? []).length > 0 && (op.tags ?? []).every((t) => declared.has(t)) ? [] : [`${op.operationId}: tags ${op.tags}`]),
    ]);
    expect(problems).toEqual([]);
    for (const tag of doc.tags ?? []) expect(tag.description?.length ?? 0).toBeGreaterThan(10);
  });

  it('gives every operation a 2xx example answer that conforms to its schema', () => {
    const problems: string[] = [];
    let withExample = 0;
    for (const { path, method, op } of operations()) {
      const ok = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));
      if (ok.length === 0) {
        problems.push(`${op.operationId}: no 2xx response`);
        continue;
      }
      // 204 No Content has no body to show
      if (ok.every(([, r]) => !r.content || Object.keys(r.content).length === 0)) {
        withExample++;
        continue;
      }
      const examples = ok.flatMap(([status, r]) =>
        Object.entries(r.content ?? {})
          .filter(([, m]) => m.example !== undefined)
          .map(([media, m]) => ({ status: Number(status), media, example: m.example })),
      );
      if (examples.length === 0) {
        problems.push(`${op.operationId}: no example on its 2xx responses`);
        continue;
      }
      withExample++;
      for (const ex of examples) {
        if (ex.media === 'application/json') {
          problems.push(...validator.check(method.toUpperCase(), concrete(path), ex.status, ex.example, ex.media));
        } else if (typeof ex.example !== 'string' || ex.example.length < 10) {
          problems.push(`${op.operationId}: ${ex.status} ${ex.media} example is not a text sample`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(withExample).toBe(operations().length);
  });

  it('gives every JSON request body (except on DELETE) an example that conforms to its schema', () => {
    const problems: string[] = [];
    for (const { path, method, op } of operations()) {
      const json = op.requestBody?.content?.['application/json'];
      if (!json || method === 'delete') continue;
      if (json.example === undefined) {
        problems.push(`${op.operationId}: JSON request body without an example`);
        continue;
      }
      problems.push(...validator.checkRequest(method.toUpperCase(), concrete(path), json.example));
    }
    expect(problems).toEqual([]);
  });

  it('shows each error answer with the code of its status, in the error envelope', () => {
    const problems: string[] = [];
    for (const { path, method, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses).filter(([s]) => Number(s) >= 400)) {
        for (const [media, m] of Object.entries(response.content ?? {})) {
          if (media === 'text/html') continue;
          const ex = m.example as { code?: string } | undefined;
          if (!ex) problems.push(`${op.operationId}: ${status} ${media} without an example`);
          else if (ex.code === 'VALIDATION_ERROR' && !['400', '422'].includes(status))
            problems.push(`${op.operationId}: ${status} shows VALIDATION_ERROR`);
          else problems.push(...validator.check(method.toUpperCase(), concrete(path), Number(status), ex, 'application/json'));
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('the validator rejects an example that does not conform (the checks above can fail)', () => {
    const created = doc.paths['/v1/deals'].post;
    const example = created.responses['201'].content!['application/json'].example as Record<string, unknown>;
    expect(validator.check('POST', '/v1/deals', 201, example, 'application/json')).toEqual([]);
    expect(validator.check('POST', '/v1/deals', 201, { ...example, id: 'one' }, 'application/json')).not.toEqual([]);
    expect(validator.checkRequest('POST', '/v1/deals', { funding_amount_requested: 'a lot' })).not.toEqual([]);
  });

  it('opens with a guide: authentication, errors, pagination, idempotency, rate limits, webhooks', () => {
    const guide = doc.info.description ?? '';
    for (const heading of ['Authentication', 'Errors', 'Pagination', 'Idempotency', 'Rate limits', 'Webhooks']) {
      expect(guide).toMatch(new RegExp(`^## ${heading}$`, 'm'));
    }
    expect(guide).toContain('verifyWebhook');
    expect(guide).toMatch(/ll_test_/);
    // where the document itself is, and where the event payloads are in it
    expect(guide).toContain('`/docs/openapi.json`');
    expect(guide).toContain('`LedgerlensEvent`');
  });

  it('declares the four ways to authenticate correctly', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.api_key).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.bearer.bearerFormat).not.toBe('JWT');
    expect(schemes.oauth2).toMatchObject({ type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/v1/oauth/token' } } });
    expect(Object.keys(schemes.oauth2.flows.clientCredentials.scopes)).toEqual(expect.arrayContaining(['read', 'write', 'deals:read']));
    const deals = doc.paths['/v1/deals'].get as Operation & { security?: Record<string, string[]>[] };
    // the web app's browser session: the HttpOnly cookie (writes also send X-CSRF-Token)
    expect(schemes.session_cookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'll_session' });
    expect(deals.security).toEqual([{ api_key: [] }, { bearer: [] }, { oauth2: ['deals:read'] }, { session_cookie: [] }]);
  });
});
