import { TestApp } from './support/harness';
import { EventDispatcher } from '../src/platform/events/event-dispatcher';
import { DomainEvent } from '../src/platform/events/events';
import { DomainEventRecord } from '../src/platform/events/outbox.entity';
import { Database } from '../src/platform/database/database.service';

describe('outbox dispatcher', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;

  beforeAll(async () => {
    app = await TestApp.start();
    org = await app.newOrg('Events');
  });
  afterAll(() => app?.close());

  it('delivers committed events to subscribers in order and marks them dispatched', async () => {
    const seen: DomainEvent[] = [];
    const dispatcher = app.get(EventDispatcher);
    dispatcher.subscribe('test-recorder', (e) => {
      if (e.organizationId === org.organization.id) seen.push(e);
    });
    const created = (
      await app.request('POST', '/v1/deals', { key: org.api_key, body: { business_name: 'Evt', funding_amount_requested: 10 } })
    ).body;
    await app.request('POST', `/v1/deals/${created.id}/decision`, { key: org.api_key, body: { decision: 'approve' } });
    await app.drainEvents();
    expect(seen.filter((e) => e.dealId === created.id).map((e) => e.type)).toEqual(['deal.created', 'deal.decision']);
    expect(seen[0]).toMatchObject({ livemode: true, actor: `user:${org.user.id}`, data: { deal_id: created.id } });
    expect(seen[0].id).toMatch(/^evt_[0-9a-f]{32}$/);
    const pending = await app.get(Database).system().count(DomainEventRecord, { dispatchedAt: null });
    expect(pending).toBe(0);
    dispatcher.subscribe('test-recorder', () => undefined);
  });

  it('retries an event whose subscriber failed, until it succeeds (at least once)', async () => {
    const dispatcher = app.get(EventDispatcher);
    let failures = 1;
    const deliveries: string[] = [];
    dispatcher.subscribe('flaky', (e) => {
      if (e.organizationId !== org.organization.id) return;
      deliveries.push(e.id);
      if (failures-- > 0) throw new Error('receiver down');
    });
    await app.request('POST', '/v1/deals', { key: org.api_key, body: { business_name: 'Flaky', funding_amount_requested: 10 } });
    await app.drainEvents();
    const em = app.get(Database).system();
    const [record] = await em.find(DomainEventRecord, { organizationId: org.organization.id, dispatchedAt: null });
    expect(record.lastError).toContain('receiver down');
    expect(record.attempts).toBe(1);
    // Make the retry due now instead of waiting for the backoff.
    await em.nativeUpdate(DomainEventRecord, { id: record.id }, { nextAttemptAt: new Date(Date.now() - 1) });
    await app.drainEvents();
    const after = await app.get(Database).system().findOneOrFail(DomainEventRecord, { id: record.id });
    expect(after.dispatchedAt).not.toBeNull();
    expect(deliveries).toEqual([record.eventId, record.eventId]);
    dispatcher.subscribe('flaky', () => undefined);
  });

  it('picks up events left undelivered by a crashed process once their lease ends', async () => {
    const em = app.get(Database).system();
    const seen: string[] = [];
    app.get(EventDispatcher).subscribe('resume', (e) => {
      seen.push(e.id);
    });
    // A row claimed by a process that died: attempts counted, lease already over.
    const stranded = em.create(DomainEventRecord, {
      eventId: 'evt_stranded000000000000000000000000',
      organizationId: org.organization.id,
      livemode: true,
      type: 'deal.updated',
      data: {},
      attempts: 1,
      nextAttemptAt: new Date(Date.now() - 1000),
    });
    await em.flush();
    await app.drainEvents();
    expect(seen).toContain(stranded.eventId);
    app.get(EventDispatcher).subscribe('resume', () => undefined);
  });
});
