/**
 * The words of the API reference (/docs): the guide shown above the operations, the tags, and a
 * summary and description per operation (by operationId). Kept here, beside the document builder,
 * so that the reference reads as one text; a test checks every operation has both.
 */

export const API_GUIDE = `Underwriting for merchant cash advance funders: bank statements in, a scored, explained, auditable decision out.

## Quick start

1. Create an organization on your server: \`npm run cli -- bootstrap --org-name "Acme Funding" --email you@acme.test --password "..." --json\`.
   It prints a live key (\`ll_live_...\`), a test key (\`ll_test_...\`) and an OAuth client, once.
2. \`POST /v1/deals\` with \`{"business_name": "Acme Bakery LLC", "funding_amount_requested": 75000}\`.
3. \`POST /v1/deals/{deal_id}/documents\` (multipart, field \`file\`) for each bank statement.
4. Follow \`GET /v1/events/deals/{deal_id}\` (server-sent events) or poll \`GET /v1/deals/{deal_id}\` until \`status\` is \`ready\`.
5. Read the report (\`GET /v1/deals/{deal_id}\`), the recommendation (\`GET /v1/deals/{deal_id}/recommendation\`) and the flagged transactions (\`GET /v1/deals/{deal_id}/transactions?flagged=true\`).

The TypeScript SDK (\`@ledgerlens/sdk\`, MIT) wraps all of this: \`ll.documents.upload(...)\`, \`ll.deals.waitUntilReady(...)\`.

## Authentication

| credential | how to send it | what it is for |
|---|---|---|
| API key | \`X-API-Key: ll_live_...\` or \`Authorization: Bearer ll_live_...\` | servers and integrations. \`ll_live_\` keys see live data, \`ll_test_\` keys a separate sandbox: a record of the other mode is 404. Scopes: \`read\`, \`write\`, \`keys:manage\` or fine scopes such as \`deals:read\`. |
| session token | \`Authorization: Bearer <token>\` from \`POST /v1/auth/login\` | people in a browser; expires after 24 h without use, with the user's role (admin, manager, underwriter, reviewer). |
| browser session (the web app) | the HttpOnly cookie \`ll_session\` set by \`POST /v1/auth/session\`; writes also send \`X-CSRF-Token\` (from \`GET /v1/auth/session\`) | the web app at \`/app\`: no credential a script can read; SameSite=Strict, Secure in production; \`DELETE /v1/auth/session\` signs out. |
| OAuth 2.0 client credentials | \`POST /v1/oauth/token\` (\`grant_type=client_credentials\`, form or JSON), then \`Authorization: Bearer <access_token>\` | machine-to-machine clients that must not hold a long-lived key; tokens last an hour. |

The event-stream paths also accept \`?token=\` (browsers' EventSource cannot send headers). Tokens and keys are never logged.

## Errors

Every error is \`{"detail": "...", "code": "DEAL_NOT_FOUND", "errors": []}\` with a stable \`code\`. Validation errors (422, \`VALIDATION_ERROR\`) list each problem as \`{loc, msg, type, field, message}\`, e.g. \`{"loc": ["body", "funding_amount_requested"], "field": "funding_amount_requested", "msg": "funding_amount_requested must be a positive number", ...}\`. A record of another organization or mode is 404, never 403.

## Pagination

Lists answer \`{"data": [...], "meta": {"page": 1, "per_page": 25, "total": 137, "total_pages": 6}}\`; \`page\` from 1, \`per_page\` 1-100. Pages are offsets: sort by a stable field for long walks.

## Idempotency

Operations that list an \`Idempotency-Key\` header (creating a deal, uploading a document, bulk ingest) store their first successful answer for 24 h under that key: a retry with the same key gets the stored answer (\`Idempotent-Replayed: true\`) and does nothing twice; a concurrent duplicate gets 409 \`IDEMPOTENCY_IN_PROGRESS\`. The key keeps a fingerprint of its request (method, path, query and body): the same key sent with a different request is 422 \`IDEMPOTENCY_KEY_REUSED\`. Use a UUID v4 per logical operation and reuse it on retries (the SDK does).

## Rate limits

Every answer carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds). Over the limit: 429 \`RATE_LIMIT_EXCEEDED\` with \`Retry-After\` (seconds). Defaults per key and minute: 1,000 reads, 200 writes, 30 uploads; logins 10 per client address.

Live keys also count against a monthly quota of requests and documents (test keys do not): \`GET /v1/usage/me\` shows it; once it is used up, 429 \`QUOTA_EXCEEDED\` with \`Retry-After\` until the next month (UTC).

## Webhooks

Configure one endpoint per organization and mode with \`PUT /v1/webhooks/config\`. Each delivery is a JSON event \`{id, type, created_at, deal_id, data}\` signed over its exact body: \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature: v1,<base64 HMAC-SHA256>\` (Standard Webhooks) and \`X-Service-Signature: sha256=<hex HMAC-SHA256>\`. Verify with \`@ledgerlens/webhooks\` (MIT) on the raw body:

\`\`\`ts
import { verifyWebhook } from '@ledgerlens/webhooks';
const event = verifyWebhook(rawBody, req.headers, process.env.LEDGERLENS_WEBHOOK_SECRET!); // throws when forged or stale
\`\`\`

Failed deliveries are retried with backoff (the same event id: deduplicate on it); the delivery log and redelivery are under \`/v1/webhooks/deliveries\`.

Each event's payload is a schema of this document: \`LedgerlensEvent\` (the union, discriminated by \`type\`), one \`<Name>Event\` envelope and \`<Name>EventData\` per type (\`DealReadyEvent\`, \`DealReadyEventData\`, ...), and the deliveries under \`x-webhooks\`. The event stream sends the same envelope as its \`data:\` JSON.

## This document

The OpenAPI document behind this page is served at \`/docs/openapi.json\` (and \`/docs/openapi.yaml\`): generate a client from it, or import it into an API tool.`;

export const TAGS: { name: string; description: string }[] = [
  { name: 'Authentication', description: 'Sessions for people, OAuth client credentials for machines.' },
  { name: 'Deals', description: 'A merchant and its funding request: the report, the recommendation and the decision.' },
  { name: 'Documents', description: 'Statements and other documents of a deal: upload, processing status, extraction and analysis.' },
  { name: 'Transactions', description: 'Transactions read from statements, with categories, screening flags and corrections.' },
  { name: 'Rulesets', description: "The funder's underwriting rules; deals are evaluated against them." },
  {
    name: 'Lenders',
    description:
      "The organization's own lender names on top of the shipped lender directory: they win where they match and reach every analysis and rescore of a deal after the change.",
  },
  { name: 'Collaboration', description: 'Assignments, comments, document requests, the deal timeline and activity, notifications.' },
  { name: 'Webhooks', description: 'Signed event deliveries to your endpoint, with a delivery log.' },
  { name: 'Event stream', description: 'The same events live, as server-sent events.' },
  { name: 'API keys', description: 'Create, rotate and revoke API keys (scope `keys:manage`).' },
  {
    name: 'Users',
    description: "The organization's users for its admins: list, invite with a role (a first password shown once), change a role or name.",
  },
  { name: 'Exports', description: 'The PDF underwriting report, transaction CSVs and the document JSON export, streamed as files.' },
  {
    name: 'Share links',
    description: 'Read-only links to a deal summary for people without an account, with expiry, password and revocation.',
  },
  { name: 'CRM', description: 'Deals synced with Salesforce, HubSpot, Pipedrive or a custom endpoint (scopes `crm:read`, `crm:write`).' },
  { name: 'Usage', description: "This month's requests and documents against the plan's monthly quota." },
  { name: 'Ingest', description: 'Many statements in one request: deal matching, batch status and a signed completion callback.' },
];

/** [summary, description] by operationId. */
export const OPERATION_DOCS: Record<string, [string, string]> = {
  getUsage: [
    "This month's usage",
    'Requests made with live API keys and OAuth tokens, and documents created in live mode, this calendar month (UTC), against the plan limits (`limit` null: unlimited). Any credential may ask; the call itself is not counted. Past a limit, calls get 429 `QUOTA_EXCEEDED`.',
  ],
  getUsageAlias: ["This month's usage (alternate path)", 'The same as `GET /v1/usage/me`.'],
  login: ['Log in (unversioned path)', 'The same as `POST /v1/auth/login`.'],
  loginV1: [
    'Log in with email and password',
    'Returns a session token to send as `Authorization: Bearer <token>`. It expires after 24 h without use. Ten attempts per minute per client address.',
  ],
  signIn: [
    'Sign in to the web app (browser session cookie)',
    'Checks email and password like `POST /v1/auth/login`, but the session token goes only into the HttpOnly, SameSite=Strict `ll_session` cookie (Secure in production): the answer carries the user, the scopes of their role and the `csrf_token` every write with the cookie must send as `X-CSRF-Token`. Ten attempts per minute per client address.',
  ],
  getSession: [
    'The signed-in user of this session',
    'With the session cookie (or a session bearer token): the user, their role and scopes, the session expiry and its `csrf_token`. Renews the cookie. 401 when signed out: the web app shows its sign-in.',
  ],
  signOut: [
    'Sign out',
    'Ends the session at once (its token is refused from now on) and clears the cookie. With the cookie, send `X-CSRF-Token`.',
  ],
  oauthToken: ['OAuth token (unversioned path)', 'The same as `POST /v1/oauth/token`.'],
  oauthTokenV1: [
    'Get an OAuth access token (client credentials)',
    'RFC 6749 client-credentials grant, form-encoded or JSON. The access token acts with the client’s scopes for an hour. `token_type` is `bearer` here and `Bearer` on `/oauth/token`, as the spec prints each form; token types are case-insensitive.',
  ],
  listDeals: [
    'List deals',
    'Most recently updated first by default; filter by `status`, search `q` (business, DBA or owner name), `sort` and `order`.',
  ],
  createDeal: [
    'Create a deal',
    'A deal starts `new`; it moves to `processing` when documents are uploaded and to `ready` once every document is processed and the report is built. Send an `Idempotency-Key` to make retries safe.',
  ],
  createDealsBatch: [
    'Create deals in bulk',
    'Up to the batch limit of deals in one request; each item succeeds or fails on its own (`created`, `errors`).',
  ],
  getDealStats: ['Deal statistics', 'Counts by status and decision, and averages, for the caller’s organization and mode.'],
  getDeal: [
    'Get a deal and its report',
    'The deal with its typed report once ready: financials, monthly table, daily balances, lender positions, NSF/overdraft list, revenue by source, screening, authenticity, cross-document findings, health score and per-statement table.',
  ],
  updateDeal: ['Update a deal', 'Changes the given fields (business details, funding amount, external reference).'],
  deleteDeal: ['Delete a deal', 'Deletes the deal with its documents and transactions.'],
  decideDeal: ['Record the decision', 'The funder’s decision: `approve`, `decline` or `funded`. Emits `deal.decision`.'],
  rescoreDeal: [
    'Rescore a deal',
    'Recomputes the ready deal’s screening, report and recommendation from its stored transactions, corrections included, and emits what an analysis completing emits (`recommendation.generated`, `deal.ready`). Idempotent: with the same documents and corrections nothing is recomputed (`rescored: false`). A correction rescores the deal by itself.',
  ],
  evaluateDeal: [
    'Evaluate against rulesets',
    'Scores the ready deal against the default ruleset, or the ones named by `ruleset_id`/`ruleset_ids`, with the factor scores and reasons per ruleset.',
  ],
  getDealRecommendation: [
    'Get the recommendation',
    'approve / review / decline with the nine factor scores, the reasons and the ruleset snapshot it was made with; 409 until the deal is ready. Cached for 30 s.',
  ],
  regenerateDealSummary: [
    'Regenerate the AI summary',
    'Writes the deal’s summary again (asynchronously: 202); the numbers in it are checked against the report.',
  ],
  reprocessFailedDocuments: ['Reprocess failed documents', 'Queues every failed document of the deal again (202).'],
  listDocuments: ['List a deal’s documents', 'With status, type, period, currency and transaction count.'],
  uploadDocument: [
    'Upload a document',
    'Multipart field `file` (PDF, PNG, JPG or TIFF, checked by content, at most 25 MB). Optional `document_type` hint, `label` and `currency`. Processing starts at once; follow it on the event stream or `GET /v1/documents/{document_id}/status`.',
  ],
  uploadDocumentsBulk: [
    'Upload several documents to a deal',
    'Repeat the multipart field `files` (at most 25); each file is accepted or rejected on its own.',
  ],
  bulkUpload: ['Upload several documents (deal in the form)', 'The same as the deal’s bulk upload, with `deal_id` as a form field.'],
  getDocumentsBatchStatus: ['Status of many documents', 'Status and processing step of up to 100 documents in one call.'],
  getDocument: [
    'Get a document',
    'Detail with the header fields read from the statement (bank, holder, account, period, balances, currency), reconciliation, needs-review reasons, tamper risk and screening counts.',
  ],
  getDocumentStatus: ['Processing status', 'The current step, progress percentage, the steps done and the error of a failed document.'],
  getDocumentAnalysis: [
    'Statement analysis',
    'Metrics of one statement: deposits, revenue, balances, NSF and overdraft counts, screening buckets.',
  ],
  getDocumentExtraction: [
    'Extraction record',
    'How the document was read (text, OCR, LLM), with confidence, warnings and the raw header fields.',
  ],
  cancelDocument: ['Cancel processing', 'Stops a document that is queued or processing.'],
  reprocessDocument: [
    'Reprocess a document',
    'Reads a failed or cancelled document again from the stored file (202); its transaction corrections are applied again to the new reading. A completed document is 409: `POST /v1/deals/{deal_id}/rescore` recomputes the deal from its stored, corrected transactions.',
  ],
  reclassifyDocument: [
    'Reclassify a document',
    'Sets the document type and reads it again (202); its transaction corrections are applied again to the new reading and their audit trail is kept.',
  ],
  downloadDocument: ['Download the original file', 'The file as uploaded, with its media type.'],
  getDocumentPdf: ['Download as PDF', 'The document as PDF (images are wrapped in a PDF page).'],
  listDealTransactions: [
    'List a deal’s transactions',
    'Every transaction of the deal’s statements; `flagged=true` returns exactly the transactions the deal’s screening counted. Filter by type and date range.',
  ],
  listDocumentTransactions: ['List a document’s transactions', 'The transactions read from one statement, in statement order.'],
  correctTransaction: [
    'Correct a transaction',
    'Fixes a misread field (description, amount, transaction type, category); the correction is kept in an audit trail and the deal is rescored at once from its corrected transactions (screening, report, recommendation).',
  ],
  listTransactionCorrections: ['Correction trail', 'Every correction of a transaction: who, when, the field, before and after.'],
  listRulesets: ['List rulesets', 'The organization’s rulesets; exactly one is the default.'],
  createRuleset: [
    'Create a ruleset',
    'Either the flat form (nine weights summing to 100, grade bounds, thresholds) or the factor-list form (factors with weights and thresholds, approval and decline thresholds).',
  ],
  getRuleset: ['Get a ruleset', 'One ruleset with its weights, thresholds and whether it is the default.'],
  updateRuleset: ['Update a ruleset', 'Changes the given fields; weights must still sum to 100.'],
  replaceRuleset: ['Replace a ruleset', 'Replaces every field of the ruleset.'],
  deleteRuleset: ['Delete a ruleset', 'The default ruleset cannot be deleted (409).'],
  setDefaultRuleset: ['Make a ruleset the default', 'Recommendations and evaluations without a named ruleset use it.'],
  listLenders: [
    'List lenders',
    'The organization’s own lender names, oldest first; with `include_directory=true` also the shipped directory (its version and every entry).',
  ],
  createLender: [
    'Add a lender name',
    'A funder the directory lacks, more descriptor forms of one it has, or a name marked as no lender (`not_lender`, `bank`, ...). It wins over the directory from the next analysis or rescore of a deal.',
  ],
  getLender: ['Get a lender name', 'One of the organization’s own entries.'],
  updateLender: ['Update a lender name', 'Changes the given fields; `aliases` replaces the list.'],
  deleteLender: ['Delete a lender name', 'Deals use the directory alone for it from their next analysis or rescore.'],
  getWebhookConfig: ['Get the webhook configuration', 'The endpoint, the subscribed events and whether it is enabled (never the secret).'],
  putWebhookConfig: [
    'Set the webhook configuration',
    'Creates or replaces the endpoint (HTTPS, public address), the events (every documented type, `webhook.test` included) and the signing secret (at least 8 characters). A 422 lists every invalid field at once, the URL rule included; nothing is contacted to validate.',
  ],
  postWebhookConfig: ['Set the webhook configuration (guide form)', 'The same as PUT, with `active` in place of `enabled`.'],
  deleteWebhookConfig: ['Delete the webhook configuration', 'Stops deliveries; the delivery log is kept.'],
  testWebhook: ['Send a test event', 'Sends a signed `webhook.test` event now and reports the endpoint’s status code, latency and answer.'],
  listWebhookDeliveries: ['List webhook deliveries', 'Every delivery with its status and attempts; filter by event and status.'],
  getWebhookDelivery: ['Get a webhook delivery', 'One delivery with each attempt’s status code, latency and response excerpt.'],
  redeliverWebhook: ['Redeliver a webhook', 'Sends a failed delivery again, with the same event id and body.'],
  streamEvents: [
    'Live events of the organization',
    'Server-sent events for the caller’s organization and mode: `id:` (resume with Last-Event-ID), `event:` and `data:` (JSON). Heartbeat comments keep proxies from closing the connection.',
  ],
  streamDealEvents: ['Live events of one deal', 'The organization stream filtered to one deal; 404 for a deal of another organization.'],
  listKeys: [
    'List API keys',
    'The active keys of the organization and mode, masked (prefix and last characters only), with scopes and last use.',
  ],
  createKey: ['Create an API key', 'The full key is in this answer only: store it. A key never gets scopes its creator does not hold.'],
  revokeKey: ['Revoke an API key', 'The key stops working at once. A key cannot revoke itself.'],
  rotateKey: ['Rotate an API key', 'Issues a new value for the key; the old value stops working at once.'],
  exportDealPdf: [
    'Download the PDF underwriting report',
    'Business, recommendation and health score, financials, AI summary, charts (monthly revenue, daily balance, factor scores), NSF/overdraft, lender positions, screening with flagged transactions, statements, authenticity and needs-review notes; 409 until the deal is ready.',
  ],
  getDealReportPdf: ['Download the PDF report (Form B path)', 'The same as `GET /v1/deals/{deal_id}/export/pdf`.'],
  exportDealCsv: [
    'Export the deal’s transactions as CSV',
    "Every transaction by date, then upload order, with the screening flags; streamed. Text that a spreadsheet would run as a formula is prefixed with `'`.",
  ],
  exportDealTransactionsCsv: ['Export transactions as CSV (Form B columns)', 'Snake-case columns with category and document_id; streamed.'],
  exportDealUnderwritingCsv: [
    "Export one of the report's underwriting tables as CSV",
    '`table`: positions, revenue (true revenue per month, then a total row), transfers or affordability (each input and step); the same figures as the deal report. 409 until the deal is ready.',
  ],
  exportDocumentCsv: ['Export a document’s transactions as CSV', 'The deal CSV’s columns for one completed document (409 otherwise).'],
  exportDocument: [
    'Export a document as JSON',
    'Document, extraction, analysis and screening with the flagged transactions; the transactions themselves by link to the CSV.',
  ],
  createShareLink: [
    'Create a share link',
    'A read-only link to the deal’s summary: optional label, expiry (`expires_at` or `expires_in_hours`) and password (stored hashed).',
  ],
  listShareLinks: ['List a deal’s share links', 'Every link, expired and revoked ones included, with view counts.'],
  listActiveShareLinks: ['List active share links', 'The links a viewer can still open.'],
  revokeShareLink: ['Revoke a share link', 'The link answers 404 from now on (204).'],
  viewSharedDeal: [
    'View a shared deal (no credential)',
    'The summary fields only (no transactions, flags or notes); `X-Share-Password` for a protected link. Counts one view; 60 requests per minute per token. From the fifth wrong password in a row, the link’s password check is locked for a doubling time (429 with `Retry-After`).',
  ],
  showSharePage: [
    'Share link page (HTML)',
    'The page a share link’s `url` opens: the same data for people, mobile-friendly, with a password form when protected.',
  ],
  unlockSharePage: ['Unlock a protected share page (HTML form)', 'The password form’s POST; answers the page, or the form again.'],
  getCrmConfig: [
    'Get the single CRM configuration',
    'Provider, base URL, state and last sync of the single configuration; credentials are never returned. 404 `CRM_NOT_CONFIGURED` when there is none.',
  ],
  putCrmConfig: [
    'Set the single CRM configuration',
    'Provider (`salesforce`, `hubspot`, `pipedrive` or `custom`), `api_key` and `base_url`. The credentials are tested with an authenticated call first: a failed test is 422 `CRM_CONNECTION_FAILED` and saves nothing. Credentials are stored encrypted.',
  ],
  getCrmFieldMappings: [
    'List field mappings (single configuration)',
    'Mappings of the single configuration, `crm_field` in `Object.field` form, Form B direction names.',
  ],
  putCrmFieldMappings: [
    'Replace field mappings (single configuration)',
    'A JSON array that becomes the whole set (an empty array clears it).',
  ],
  getCrmProviderConfig: [
    'Get a provider configuration',
    'State, interval and last sync of one provider; credentials are never returned. A provider not configured (or deleted) answers `enabled: false, has_credentials: false`.',
  ],
  putCrmProviderConfig: [
    'Replace a provider configuration',
    '`enabled`, `credentials` (per provider) and `sync_interval_minutes` (15-1440, default 60). Credentials are encrypted at rest and never returned.',
  ],
  deleteCrmProviderConfig: [
    'Delete a provider configuration',
    'Removes the configuration, its credentials, field mappings and deal links; syncs stop. Irreversible. 404 `CRM_NOT_CONFIGURED` when there is nothing to remove.',
  ],
  testCrmProviderConfig: [
    'Test a provider connection',
    'An authenticated call with the stored credentials: `{success, message}`. Changes nothing.',
  ],
  getCrmProviderFieldMapping: [
    'Get a provider’s field mappings',
    '`{provider, mappings: [{banklyze_field, crm_field, direction}]}`; an empty list when none, with or without a configuration.',
  ],
  putCrmProviderFieldMapping: [
    'Replace a provider’s field mappings',
    'The given list becomes the whole set. Directions `to_crm`, `from_crm`, `both` (last write wins; an unknown one is 422); computed deal fields can only go to the CRM. Accepted before the credentials are saved, so mappings can be prepared first.',
  ],
  syncCrm: [
    'Sync with the CRMs',
    'With `{deal_id}`: pushes the deal to every enabled provider now and answers per provider. Without a body: starts a full sync (202), pull then push per provider, followed in `GET /v1/crm/sync/logs/{log_id}`.',
  ],
  listCrmSyncLog: [
    'List the sync log',
    'Every push and pull per deal and provider, newest first; filter by `deal_id`, `provider`, `status`. Kept 90 days.',
  ],
  listCrmSyncRuns: ['List sync runs', 'Full and partial sync runs with their counts, newest first; filter by `status`. Kept 90 days.'],
  getCrmSyncRun: [
    'Get a sync run',
    'The run with `details`: records created and updated on each side, skipped, and every error with its record and field.',
  ],
  receiveCrmWebhook: [
    'Receive a CRM change',
    '`{provider, event, record_id, fields, timestamp}` or a native HubSpot (signature checked) or Pipedrive payload. Maps the changed fields to the linked deal when the change is newer, then syncs the deal to the other providers.',
  ],
  createIngest: [
    'Bulk ingest statements (or create deals in bulk)',
    'Multipart: 1-20 PDF files (`files` or `files[]`, 20 MB each) and `metadata` (JSON): the deal is found by `deal_id`, external reference, EIN or normalised business name, else created; 202 with the batch and its documents. With an optional callback `{url, secret}`, a signed `batch.completed` is POSTed when every document is done. A JSON body `{applications: [...]}` creates deals instead (201, `created`/`skipped`). `X-Org-Id` must name the caller’s organization.',
  ],
  getIngestBatch: [
    'Get an ingest batch',
    '`pending`, `processing` or `completed`, with counts, each document’s status and the callback’s delivery state.',
  ],
  getIngestBatchDetail: [
    'Get an ingest batch (detail form)',
    'Each document with its statement period and transaction count, and the recommendation once the batch is completed.',
  ],
};
