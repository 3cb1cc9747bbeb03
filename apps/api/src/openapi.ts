import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_GUIDE, OPERATION_DOCS, TAGS } from './openapi-docs';
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
    for (const op of Object.values(item) as { operationId?: string; summary?: string; description?: string }[]) {
      const docs = op.operationId ? OPERATION_DOCS[op.operationId] : undefined;
      if (!docs) continue;
      op.summary ??= docs[0];
      op.description ??= docs[1];
    }
  }
  return sortKeys(document) as OpenAPIObject;
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
