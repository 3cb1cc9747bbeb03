import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_GUIDE, OPERATION_DOCS, TAGS } from './openapi-docs';
import RECORDED_EXAMPLES from './openapi-examples.json';
import { ALL_SCOPES } from './platform/auth/auth-context';
import { AppConfig } from './platform/config/config';

const SCOPE_WORDS: Record<string, string> = {
  read: 'Read everything (every *:read scope)',
  write: 'Change everything (every *:write scope)',
  'keys:manage': 'Create, rotate and revoke API keys',
};

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
        // without it @nestjs/swagger writes `JWT`: these tokens are opaque
        bearerFormat: 'opaque',
        description:
          'An API key (`ll_live_...`, `ll_test_...`), a session token from /v1/auth/login or an OAuth access token from /v1/oauth/token',
      },
      'bearer',
    )
    .addOAuth2(
      {
        type: 'oauth2',
        description:
          'OAuth 2.0 client credentials: exchange the client id and secret printed by `bootstrap` for an access token, then send it as `Authorization: Bearer <access_token>`. The coarse scopes `read` and `write` grant every `*:read` and `*:write` scope.',
        flows: {
          clientCredentials: {
            tokenUrl: '/v1/oauth/token',
            scopes: Object.fromEntries(ALL_SCOPES.map((s) => [s, SCOPE_WORDS[s] ?? s])),
          },
        },
      },
      'oauth2',
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

interface Answer {
  status: number;
  media?: string;
  response?: unknown;
}
interface Example extends Answer {
  request?: unknown;
  more?: Answer[];
}

const EXAMPLES = RECORDED_EXAMPLES as Record<string, Example>;

/** The request and response examples of a recorded run of the server (tools/docs/examples.ts). */
function addExample(op: OperationLike): void {
  const ex = op.operationId ? EXAMPLES[op.operationId] : undefined;
  if (!ex) return;
  if (ex.request !== undefined) {
    for (const media of ['application/json', 'application/x-www-form-urlencoded']) {
      const content = op.requestBody?.content?.[media];
      if (content) content.example ??= ex.request;
    }
  }
  for (const answer of [ex, ...(ex.more ?? [])]) {
    if (answer.response === undefined) continue;
    const response = op.responses?.[String(answer.status)] ?? Object.entries(op.responses ?? {}).find(([s]) => s.startsWith('2'))?.[1];
    const content = response?.content;
    const media = (answer.media && content?.[answer.media]) || content?.['application/json'] || content?.['text/event-stream'];
    if (media) media.example ??= answer.response;
  }
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
