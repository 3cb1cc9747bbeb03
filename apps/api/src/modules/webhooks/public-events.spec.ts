import { DomainEventType } from '../../platform/events/events';
import { PUBLIC_EVENT_TYPES, toPublicEvent } from './public-events';

const at = new Date('2026-11-26T09:00:00.000Z');
const event = (type: DomainEventType | 'webhook.test', data: Record<string, unknown>, dealId: number | null = 7) => ({
  id: 'evt_1',
  type,
  dealId,
  data,
  createdAt: at,
});

describe('toPublicEvent (what leaves the service)', () => {
  it('builds the union envelope of both spec forms', () => {
    expect(
      toPublicEvent(
        event('deal.ready', { deal_id: 7, business_name: 'A', status: 'ready', health_score: 71.5, grade: 'B', document_count: 2 }),
      ),
    ).toEqual({
      id: 'evt_1',
      type: 'deal.ready',
      event: 'deal.ready',
      created_at: '2026-11-26T09:00:00.000Z',
      timestamp: '2026-11-26T09:00:00.000Z',
      deal_id: 7,
      data: { deal_id: 7, business_name: 'A', status: 'ready', health_score: 71.5, grade: 'B', document_count: 2 },
    });
  });

  it.each([
    'ruleset.created',
    'ruleset.updated',
    'ruleset.deleted',
    'ruleset.default_changed',
    'deal.summary_requested',
    'deal.deleted',
    'key.created',
    'key.revoked',
    'key.rotated',
  ] as const)('keeps the internal event %s in', (type) => {
    expect(toPublicEvent(event(type, { key_id: 1 }))).toBeNull();
  });

  it('sends only the documented fields of an event, so internal fields added later do not leak', () => {
    const pub = toPublicEvent(
      event('document.completed', {
        document_id: 3,
        deal_id: 7,
        document_type: 'bank_statement',
        transaction_count: 40,
        storage_key: 'files/x',
      }),
    );
    expect(pub!.data).toEqual({ document_id: 3, deal_id: 7, document_type: 'bank_statement', transaction_count: 40 });
  });

  it('maps every public type', () => {
    for (const type of PUBLIC_EVENT_TYPES) expect(toPublicEvent(event(type, {}))?.type).toBe(type);
  });
});
