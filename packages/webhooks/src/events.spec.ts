import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PUBLIC_EVENT_TYPES, toPublicEvent } from '../../../apps/api/src/modules/webhooks/public-events';
import { EVENT_TYPES, type EventDataMap, type EventType } from './events';
import { signWebhook, verifyWebhook } from './index';

/** One event of each type, with every field its type declares (checked against EventDataMap by tsc). */
const SAMPLES: { [T in EventType]: Required<EventDataMap[T]> } = {
  'deal.created': { deal_id: 1, business_name: 'Acme' },
  'deal.updated': { deal_id: 1, changed_fields: ['status'], status: 'processing', previous_status: 'new' },
  'deal.ready': { deal_id: 1, business_name: 'Acme', status: 'ready', health_score: 71, grade: 'B', document_count: 2 },
  'deal.decision': { deal_id: 1, decision: 'approve', previous_decision: null },
  'document.uploaded': { document_id: 2, deal_id: 1, filename: 'a.pdf', document_type: null },
  'document.completed': { document_id: 2, deal_id: 1, document_type: 'bank_statement', transaction_count: 40 },
  'document.failed': { document_id: 2, deal_id: 1, error: 'not a statement' },
  'batch.completed': { batch_id: 'b', deal_id: 1, total_documents: 2, completed: 2, failed: 0, recommendation: null },
  'recommendation.generated': {
    deal_id: 1,
    decision: 'review',
    total_score: 61,
    max_advance: 20000,
    cfcr: 1.4,
    ruleset_id: 3,
    ruleset_name: 'Default',
    grade: 'C',
  },
  'export.ready': { deal_id: 1, document_id: 2, format: 'csv', filename: 'x.csv', bytes: 10, rows: 3, exported_at: '2026-01-01T00:00:00Z' },
  'notification.created': {
    notification_id: 5,
    user_id: 6,
    user_email: 'a@b.test',
    type: 'mention',
    title: 't',
    message: 'm',
    deal_id: 1,
    created_at: '2026-01-01T00:00:00Z',
  },
  'webhook.test': { message: 'Test event from Ledgerlens', event_type: null, mode: 'test' },
};

/** The data fields the server lets out for a type: its filter run over data that has every field. */
function serverFields(type: EventType): string[] | 'all' {
  const everything = new Proxy({}, { has: () => true, get: (_t, key) => `value of ${String(key)}` });
  const pub = toPublicEvent({ id: 'evt_1', type: type as never, dealId: 1, data: everything, createdAt: new Date(0) });
  const keys = Object.keys(pub?.data ?? {});
  return keys.length ? keys : 'all';
}

describe('the shared event types', () => {
  it('list every event type the server sends, and only those', () => {
    expect([...EVENT_TYPES].sort()).toEqual([...PUBLIC_EVENT_TYPES].sort());
  });

  it.each([...EVENT_TYPES])("%s: the data fields are the server's", (type) => {
    const fields = serverFields(type);
    // types whose data the server passes through whole are covered by their emitters' e2e tests
    if (fields !== 'all') expect(Object.keys(SAMPLES[type]).sort()).toEqual([...fields].sort());
  });

  it('verifyWebhook returns the event typed by its type (switch narrows data)', () => {
    const raw = JSON.stringify({
      id: 'evt_1',
      type: 'deal.ready',
      event: 'deal.ready',
      created_at: 'x',
      timestamp: 'x',
      deal_id: 1,
      data: SAMPLES['deal.ready'],
    });
    const event = verifyWebhook(raw, { 'x-service-signature': signWebhook(raw, 's3cret') }, 's3cret', { allowUntimedSignature: true });
    const score = (): number | null => {
      switch (event.type) {
        case 'deal.ready':
          return event.data.health_score;
        case 'document.completed':
          return event.data.transaction_count;
        default:
          // @ts-expect-error only deal.ready carries health_score
          return event.data.health_score;
      }
    };
    expect(score()).toBe(71);
  });

  it('the SDK carries the same file', () => {
    const here = readFileSync(join(__dirname, 'events.ts'), 'utf8');
    expect(readFileSync(join(__dirname, '../../sdk/src/events.ts'), 'utf8')).toBe(here);
  });

  it('is what packages/sdk/scripts/generate-events.mjs writes from openapi/openapi.json (npm run sdk:generate)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'events-'));
    try {
      const repo = join(__dirname, '../../..');
      execFileSync(process.execPath, [
        join(repo, 'packages/sdk/scripts/generate-events.mjs'),
        join(repo, 'openapi/openapi.json'),
        join(dir, 'events.ts'),
      ]);
      expect(readFileSync(join(dir, 'events.ts'), 'utf8')).toBe(readFileSync(join(__dirname, 'events.ts'), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
