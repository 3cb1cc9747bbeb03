import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AppConfig } from './platform/config/config';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Ledgerlens API')
    .setDescription(
      'Underwriting for merchant cash advance funders: bank statements in, a scored, explained, auditable decision out. ' +
        'Errors use the envelope {detail, code, errors}. Lists use {data, meta: {page, per_page, total, total_pages}}.',
    )
    .setVersion('1.0.0')
    .setLicense('AGPL-3.0-or-later', 'https://www.gnu.org/licenses/agpl-3.0.html')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, 'api_key')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'API key, session token or OAuth access token' }, 'bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config, { operationIdFactory: (_controller, method) => method });
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
