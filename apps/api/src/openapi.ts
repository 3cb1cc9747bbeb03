import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_GUIDE, OPERATION_DOCS, STATIC_EXAMPLES, TAGS } from './openapi-docs';
import RECORDED_EXAMPLES from './openapi-examples.json';
import { AppConfig } from './platform/config/config';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Ledgerlens API')
    .setDescription(API_GUIDE)
    .setVersion('1.0.0')
    .setLicense('AGPL-3.0-or-later', 'https://www.gnu.org/licenses/agpl-3.0.html')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, 'api_key')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque',
        description:
          'An API key (`ll_live_...`, `ll_test_...`), a session token from /v1/auth/login or an OAuth access token from /v1/oauth/token',
      },
      'bearer',
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, { operationIdFactory: (_controller, method) => method });
  const used = new Set(
    Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((op) => (op as { tags?: string[] }).tags ?? [])),
  );
  document.tags = [
    ...TAGS.filter((t) => used.has(t.name)),
    ...[...used].filter((n) => !TAGS.some((t) => t.name === n)).map((name) => ({ name })),
  ];
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item) as OperationLike[]) {
      const docs = op.operationId ? OPERATION_DOCS[op.operationId] : undefined;
      if (docs) {
        op.summary ??= docs[0];
        op.description ??= docs[1];
      }
      addExample(op);
    }
  }
  return sortKeys(document) as OpenAPIObject;
}

interface OperationLike {
  operationId?: string;
  summary?: string;
  description?: string;
  requestBody?: { content?: Record<string, { example?: unknown }> };
  responses?: Record<string, { content?: Record<string, { example?: unknown }> }>;
}

const EXAMPLES = RECORDED_EXAMPLES as Record<string, { status: number; request?: unknown; response?: unknown }>;

/** A request and response example from a recorded run of the server (or a written one where a run cannot make it). */
function addExample(op: OperationLike): void {
  const ex = op.operationId ? (EXAMPLES[op.operationId] ?? STATIC_EXAMPLES[op.operationId]) : undefined;
  if (!ex) return;
  const json = op.requestBody?.content?.['application/json'];
  if (json && ex.request !== undefined) json.example ??= ex.request;
  const form = op.requestBody?.content?.['application/x-www-form-urlencoded'];
  if (form && ex.request !== undefined) form.example ??= ex.request;
  if (ex.response === undefined) return;
  const response = op.responses?.[String(ex.status)] ?? Object.entries(op.responses ?? {}).find(([s]) => s.startsWith('2'))?.[1];
  const content = response?.content;
  const media = content?.['application/json'] ?? content?.['text/event-stream'];
  if (media) media.example ??= ex.response;
}

/** Deterministic output: the committed openapi/openapi.json must not change unless the API does. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Serves the API reference at /docs and the spec at /docs/openapi.json. */
export function setupOpenApi(app: INestApplication, _config: AppConfig): void {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/openapi.json', yamlDocumentUrl: 'docs/openapi.yaml' });
}
