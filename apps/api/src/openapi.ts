import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_GUIDE, OPERATION_DOCS, TAGS } from './openapi-docs';
import RECORDED_EXAMPLES from './openapi-examples.json';
import { ALL_SCOPES } from './platform/auth/auth-context';
import { ErrorCode, statusOf } from './platform/errors/api-error';
import { AppConfig } from './platform/config/config';
import { addEventSchemas } from './modules/webhooks/event-schemas';
import { PUBLIC_EVENT_TYPES } from './modules/webhooks/public-events';

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
    .addCookieAuth(
      'll_session',
      {
        type: 'apiKey',
        in: 'cookie',
        name: 'll_session',
        description:
          "The web app's browser session: `POST /v1/auth/session` sets this HttpOnly, SameSite=Strict cookie (Secure in production) and `DELETE /v1/auth/session` clears it. Every write made with it (POST, PUT, PATCH, DELETE) must carry the header `X-CSRF-Token` with the `csrf_token` of `GET /v1/auth/session`, else 403 `FORBIDDEN`. API clients use an API key, a bearer token or OAuth instead.",
      },
      'session_cookie',
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
      addErrorExamples(op, document.components?.schemas ?? {});
    }
  }
  addEventSchemas(document as unknown as Parameters<typeof addEventSchemas>[0], PUBLIC_EVENT_TYPES);
  return sortKeys(document) as OpenAPIObject;
}

interface MediaLike {
  example?: unknown;
  schema?: { $ref?: string };
}
interface OperationLike {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: { in?: string; name?: string }[];
  requestBody?: { content?: Record<string, MediaLike> };
  responses?: Record<string, { description?: string; content?: Record<string, MediaLike> }>;
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
    if (!media) continue;
    media.example ??= answer.response;
    // another 2xx with the same schema (e.g. the 200 of an idempotent replay) shows the same answer
    for (const [status, other] of Object.entries(op.responses ?? {})) {
      const twin = status.startsWith('2') ? other.content?.[answer.media ?? 'application/json'] : undefined;
      if (twin && twin !== media && twin.schema?.$ref && twin.schema.$ref === media.schema?.$ref) twin.example ??= answer.response;
    }
  }
}

const ERROR_ENVELOPE = '#/components/schemas/ErrorEnvelopeDto';
const DEFAULT_CODES: Record<number, ErrorCode> = {
  400: ErrorCode.VALIDATION_ERROR,
  401: ErrorCode.AUTH_REQUIRED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  409: ErrorCode.CONFLICT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  422: ErrorCode.VALIDATION_ERROR,
  429: ErrorCode.RATE_LIMIT_EXCEEDED,
  503: ErrorCode.SERVICE_UNAVAILABLE,
};
const DETAILS: Partial<Record<ErrorCode, string>> = {
  [ErrorCode.AUTH_REQUIRED]: 'Authentication required: send X-API-Key or Authorization: Bearer',
  [ErrorCode.INVALID_API_KEY]: 'Invalid or revoked API key',
  [ErrorCode.NOT_FOUND]: 'Not found',
  [ErrorCode.DEAL_NOT_FOUND]: 'Deal not found',
  [ErrorCode.DOCUMENT_NOT_FOUND]: 'Document not found',
  [ErrorCode.RATE_LIMIT_EXCEEDED]: 'Rate limit exceeded. Try again in 12 seconds.',
  [ErrorCode.VALIDATION_ERROR]: 'Validation failed',
};

/**
 * Error answers show the error of their status (the code named first in the response's
 * description, else the status's usual code), instead of the envelope's generic example.
 */
function addErrorExamples(op: OperationLike, schemas: Record<string, unknown>): void {
  for (const [statusText, response] of Object.entries(op.responses ?? {})) {
    const status = Number(statusText);
    if (!(status >= 400)) continue;
    const named = /^([A-Z][A-Z0-9_]{3,})\b/.exec(response.description ?? '')?.[1] as ErrorCode | undefined;
    const code = named && Object.values(ErrorCode).includes(named) && statusOf(named) === status ? named : DEFAULT_CODES[status];
    if (!code) continue;
    const said = (response.description ?? '').replace(/^[A-Z][A-Z0-9_]{3,}( or [A-Z][A-Z0-9_]{3,})*:?\s*/, '').trim();
    const scope = /needs scope (\S+)/.exec(response.description ?? '')?.[1];
    const detail = scope
      ? `This credential lacks the scope ${scope}`
      : (DETAILS[code] ?? (said ? said[0].toUpperCase() + said.slice(1) : humanize(code)));
    const example = { detail, code, errors: code === ErrorCode.VALIDATION_ERROR && status === 422 ? [validationExample(op, schemas)] : [] };
    for (const media of Object.values(response.content ?? {})) {
      if (media.schema?.$ref === ERROR_ENVELOPE) media.example ??= example;
    }
  }
}

/** One validation entry naming a real field of the operation: a required body field, else its first path parameter. */
function validationExample(op: OperationLike, schemas: Record<string, unknown>) {
  const param = op.parameters?.find((p) => p.in === 'path');
  const ref = op.requestBody?.content?.['application/json']?.schema?.$ref;
  const body = ref ? (schemas[ref.split('/').pop()!] as { required?: string[]; properties?: Record<string, unknown> }) : undefined;
  const field = body?.required?.[0] ?? Object.keys(body?.properties ?? {})[0];
  const [loc, msg, type] = field
    ? [['body', field], `${field} should not be empty`, 'value_error.missing']
    : param?.name
      ? [['path', param.name], `${param.name} must be a positive integer`, 'type_error.integer']
      : [['query', 'page'], 'page must be an integer of at least 1', 'type_error.integer'];
  const name = (loc as string[])[1];
  return { loc, msg, type, field: name, message: msg };
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
  // built on the first request to /docs (then kept): scanning 100+ routes costs ~0.2 s of every start
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
  });
}

/** `INVALID_DECISION` -> `Invalid decision`. */
function humanize(code: string): string {
  const words = code.toLowerCase().replace(/_/g, ' ');
  return words[0].toUpperCase() + words.slice(1);
}
