import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type Content = Record<string, { schema?: unknown }>;
type Operation = { requestBody?: { content?: Content }; responses?: Record<string, { content?: Content }> };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

/**
 * Checks every response the e2e tests receive against the committed openapi/openapi.json: the
 * path and method must be documented, and a JSON body must match the documented schema
 * (errors: the envelope).
 */
export class OpenApiValidator {
  private readonly doc: Doc;
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly routes: { method: string; template: string; re: RegExp }[] = [];

  /** `source`: a file holding the document (default: the committed one), or the document itself (e.g. as served at /docs). */
  constructor(source: string | object = join(__dirname, '../../../../openapi/openapi.json')) {
    this.doc = (typeof source === 'string' ? JSON.parse(readFileSync(source, 'utf8')) : structuredClone(source)) as Doc;
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', components: rewriteRefs(this.doc.components) });
    for (const [template, ops] of Object.entries(this.doc.paths)) {
      const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const method of Object.keys(ops)) this.routes.push({ method: method.toUpperCase(), template, re });
    }
    // Literal paths win over templated ones (/v1/deals/stats before /v1/deals/{deal_id}).
    this.routes.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  }

  /** Returns a list of problems (empty when the response conforms). */
  check(method: string, path: string, status: number, body: unknown, contentType: string | null): string[] {
    const route = this.route(method, path);
    if (!route) return [`${method} ${path} is not documented in openapi.json`];
    if (!contentType?.includes('application/json')) return [];
    const key = `${route.method} ${route.template} ${status}`;
    let validate = this.cache.get(key);
    if (!validate) {
      const op = this.doc.paths[route.template][route.method.toLowerCase()];
      const documented = op.responses?.[String(status)]?.content?.['application/json']?.schema;
      const schema = documented ?? (status >= 400 ? { $ref: '#/components/schemas/ErrorEnvelopeDto' } : null);
      if (!schema) return [`${key}: status ${status} is not documented`];
      validate = this.ajv.compile(rewriteRefs(schema) as object);
      this.cache.set(key, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${key}: ${e.instancePath || '/'} ${e.message}`);
  }

  /** Problems of a JSON request body against the documented request schema (empty when it conforms). */
  checkRequest(method: string, path: string, body: unknown, contentType = 'application/json'): string[] {
    const route = this.route(method, path);
    if (!route) return [`${method} ${path} is not documented in openapi.json`];
    const key = `${route.method} ${route.template} request ${contentType}`;
    let validate = this.cache.get(key);
    if (!validate) {
      const schema = this.doc.paths[route.template][route.method.toLowerCase()].requestBody?.content?.[contentType]?.schema;
      if (!schema) return [`${key}: no request body of this type is documented`];
      validate = this.ajv.compile(rewriteRefs(schema) as object);
      this.cache.set(key, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${key}: ${e.instancePath || '/'} ${e.message}`);
  }

  /** Problems of `value` against the component schema `name` (e.g. `LedgerlensEvent`; empty when it conforms). */
  checkComponent(name: string, value: unknown): string[] {
    const key = `component ${name}`;
    let validate = this.cache.get(key);
    if (!validate) {
      if (!this.doc.components.schemas[name]) return [`${name} is not a component schema`];
      validate = this.ajv.compile({ $ref: `openapi#/components/schemas/${name}` });
      this.cache.set(key, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${name}: ${e.instancePath || '/'} ${e.message}`);
  }

  private route(method: string, path: string) {
    return this.routes.find((r) => r.method === method && r.re.test(path));
  }
}

/**
 * Points $refs at the registered document, reads OpenAPI 3.0 `nullable` on a composed schema
 * (a nullable $ref/allOf, as @nestjs/swagger emits it) as "this schema or null", and OpenAPI 3.0
 * boolean `exclusiveMinimum`/`exclusiveMaximum` as JSON Schema's numeric ones.
 */
function rewriteRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rewriteRefs);
  if (schema && typeof schema === 'object') {
    const rewritten = Object.fromEntries(
      Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? `openapi${v}` : rewriteRefs(v)]),
    ) as Record<string, unknown>;
    // OpenAPI 3.0 writes an exclusive bound as a boolean beside minimum/maximum; JSON Schema as the bound itself
    for (const [flag, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (typeof rewritten[flag] === 'boolean') {
        if (rewritten[flag] && typeof rewritten[bound] === 'number') rewritten[flag] = rewritten[bound];
        else delete rewritten[flag];
        if (typeof rewritten[flag] === 'number') delete rewritten[bound];
      }
    }
    if (rewritten.nullable === true && (rewritten.type === undefined || rewritten.allOf || rewritten.$ref)) {
      const { nullable: _n, type: _t, ...rest } = rewritten;
      return { anyOf: [rest, { type: 'null' }] };
    }
    return rewritten;
  }
  return schema;
}
