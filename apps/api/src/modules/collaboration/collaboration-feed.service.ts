import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { Clock } from '../../platform/clock/clock';
import { Database } from '../../platform/database/database.service';
import { Scope, scopeFields } from '../../platform/database/tenant';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { DomainEvent, recordEvent } from '../../platform/events/events';
import { truncateText } from '../../platform/text/truncate';
import { User } from '../auth/auth.entities';
import type { DealRecord } from '../pipeline/records';
import { DealsService } from '../pipeline/services/deals.service';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { ApiKey } from '../keys/keys.entities';
import { Assignment, DocumentRequest, Notification, RequestableDocumentType, TimelineEntry } from './collaboration.entities';
import { fulfilledLine, TIMELINE_EVENTS, TimelineLine, timelineLine } from './timeline-lines';
import { displayName, usersById } from './users';

interface Actor {
  name: string;
  userId: number | null;
}

interface NotificationDraft {
  userId: number;
  type: string;
  title: string;
  message: string;
}

const FULFILLING_EVENTS = new Set(['document.uploaded', 'document.completed']);

const isStatusChange = (event: DomainEvent) =>
  Array.isArray(event.data.changed_fields) && event.data.changed_fields.includes('status') && event.data.status !== undefined;

/** Whether the event's only effect is its timeline line (no notification, no request to fulfil, no other user to name). */
function lineOnly(event: DomainEvent): boolean {
  const d = event.data;
  switch (event.type) {
    case 'deal.assigned':
    case 'deal.unassigned':
    case 'comment.added':
      return false;
    case 'document.uploaded':
    case 'document.completed':
      return !d.document_type;
    case 'deal.updated':
      return !isStatusChange(event);
    case 'comment.updated':
      return !(Array.isArray(d.new_mentioned_user_ids) && d.new_mentioned_user_ids.length > 0);
    default:
      return true;
  }
}

/**
 * The collaboration side effects, fed by the outbox (never inline in a request): timeline lines,
 * notifications (with a `notification.created` event each, for webhooks) and the automatic
 * fulfilment of document requests. Each event is applied once: the event id goes into a ledger
 * in the same transaction as its effects, so a redelivery (the dispatcher delivers at least once,
 * and again after a crash or a failed sibling subscriber) finds it there and does nothing.
 */
@Injectable()
export class CollaborationFeed implements OnModuleInit {
  constructor(
    private readonly db: Database,
    private readonly deals: DealsService,
    private readonly events: EventDispatcher,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.events.subscribe('collaboration', async (event) => {
      await this.apply(event);
    });
  }

  /** Applies one domain event; returns whether it was new (false for a redelivery or an event without effects here). */
  async apply(event: DomainEvent): Promise<boolean> {
    if (event.dealId === null || !TIMELINE_EVENTS.includes(event.type)) return false;
    if (event.type === 'deal.updated' && !isStatusChange(event)) return false;
    const scope: Scope = { organizationId: event.organizationId, livemode: event.livemode };
    if (lineOnly(event)) return this.applyLineOnly(scope, event);
    let notified = false;
    const applied = await this.db.forScope(scope).transactional(async (tx) => {
      if (!(await this.claim(tx, event.id))) return false;
      const deal = await this.deals.findById(UnitOfWork.of(tx), event.dealId!);
      if (!deal) return true; // deleted since: its collaboration rows went with it
      const actor = await this.actor(tx, scope, event.actor);
      const subject = await this.subject(tx, scope, event);
      const line = timelineLine(event, { actor: actor.name, subject: displayName(subject) ?? undefined });
      if (line) this.writeLine(tx, scope, deal.id, event.id, line, event, actor);
      if (FULFILLING_EVENTS.has(event.type)) await this.fulfilRequests(tx, scope, deal.id, event, actor);
      const drafts = await this.notificationsFor(tx, event, deal, actor);
      notified = drafts.length > 0;
      await this.notify(tx, scope, event, deal, drafts);
      return true;
    });
    if (notified) this.events.notify();
    return applied;
  }

  /**
   * Most events (processing results, decisions, deletes, document requests) only add their line:
   * one statement, idempotent by the line's unique source key, and a no-op once the deal is gone.
   */
  private async applyLineOnly(scope: Scope, event: DomainEvent): Promise<boolean> {
    const em = this.db.forScope(scope);
    const actor = await this.actor(em, scope, event.actor);
    const line = timelineLine(event, { actor: actor.name })!;
    const rows: unknown[] = await em.execute(
      `insert into timeline_entries (organization_id, livemode, deal_id, source_key, event_type, kind, actor, actor_id, actor_name, description, metadata, created_at)
       select d.organization_id, d.livemode, d.id, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ? from deals d
       where d.id = ? and d.organization_id = ? and d.livemode = ?
       on conflict (source_key) do nothing returning id`,
      [
        event.id,
        line.eventType,
        line.kind,
        event.actor ?? 'system',
        actor.userId,
        truncateText(actor.name, 320),
        truncateText(line.description, 1000),
        JSON.stringify(line.metadata),
        event.createdAt,
        event.dealId,
        scope.organizationId,
        scope.livemode,
      ],
      'all',
    );
    return rows.length === 1;
  }

  /** The ledger insert: false when this event was applied before (or is being applied by another process, which then wins). */
  private async claim(tx: EntityManager, eventId: string): Promise<boolean> {
    const rows: unknown[] = await tx.execute(
      'insert into collaboration_consumed_events (event_id, consumed_at) values (?, ?) on conflict (event_id) do nothing returning event_id',
      [eventId, this.clock.now()],
      'all',
    );
    return rows.length === 1;
  }

  private async actor(tx: EntityManager, scope: Scope, actor: string | null): Promise<Actor> {
    const [kind, id] = (actor ?? 'system').split(':');
    if (kind === 'user' && id) {
      const user = await tx.findOne(User, { id: Number(id), organizationId: scope.organizationId });
      return { name: displayName(user) ?? `user ${id}`, userId: Number(id) };
    }
    if (kind === 'api_key' && id) {
      const key = await tx.findOne(ApiKey, { id: Number(id) });
      return { name: key ? `API key ${key.name}` : 'API key', userId: null };
    }
    return { name: 'system', userId: null };
  }

  /** The user an assignment event is about. */
  private async subject(tx: EntityManager, scope: Scope, event: DomainEvent): Promise<User | null> {
    if (event.type !== 'deal.assigned' && event.type !== 'deal.unassigned') return null;
    return tx.findOne(User, { id: Number(event.data.user_id), organizationId: scope.organizationId });
  }

  private writeLine(tx: EntityManager, scope: Scope, dealId: number, key: string, line: TimelineLine, event: DomainEvent, actor: Actor) {
    tx.persist(
      tx.create(TimelineEntry, {
        ...scopeFields(scope),
        dealId,
        sourceKey: key,
        eventType: line.eventType,
        kind: line.kind,
        actor: event.actor ?? 'system',
        actorId: actor.userId,
        actorName: truncateText(actor.name, 320),
        description: truncateText(line.description, 1000),
        metadata: line.metadata,
        createdAt: event.createdAt,
      }),
    );
  }

  /** Pending requests of the uploaded (or, once classified, the processed) document's type become fulfilled. */
  private async fulfilRequests(tx: EntityManager, scope: Scope, dealId: number, event: DomainEvent, actor: Actor): Promise<void> {
    const type = event.data.document_type as RequestableDocumentType | null | undefined;
    if (!type) return;
    const pending = await tx.find(DocumentRequest, { dealId, status: 'pending', documentType: type }, { orderBy: { id: 'asc' } });
    const now = this.clock.now();
    for (const request of pending) {
      Object.assign(request, {
        status: 'fulfilled',
        fulfilledAt: now,
        fulfilledDocumentId: Number(event.data.document_id) || null,
        updatedAt: now,
      });
      this.writeLine(tx, scope, dealId, `${event.id}:req:${request.id}`, fulfilledLine(request, event.data.document_id), event, actor);
    }
  }

  /** Who hears of the event: the assignee; mentioned users; the deal's current assignees on a status change. Never the actor. */
  private async notificationsFor(tx: EntityManager, event: DomainEvent, deal: DealRecord, actor: Actor): Promise<NotificationDraft[]> {
    const d = event.data;
    const name = deal.businessName;
    switch (event.type) {
      case 'deal.assigned':
        return [
          {
            userId: Number(d.user_id),
            type: 'deal.assigned',
            title: `You were assigned to ${name}`,
            message: `${actor.name} assigned you to ${name} as ${String(d.role)}.`,
          },
        ];
      case 'comment.added':
      case 'comment.updated': {
        const ids = (event.type === 'comment.added' ? d.mentioned_user_ids : d.new_mentioned_user_ids) as number[] | undefined;
        return (ids ?? [])
          .filter((id) => id !== actor.userId)
          .map((userId) => ({
            userId,
            type: 'comment.mention',
            title: `${actor.name} mentioned you on ${name}`,
            message: String(d.excerpt ?? ''),
          }));
      }
      case 'deal.updated': {
        if (!isStatusChange(event)) return [];
        const assignees = await tx.find(Assignment, { dealId: deal.id }, { orderBy: { id: 'asc' } });
        return assignees
          .filter((a) => a.userId !== actor.userId)
          .map((a) => ({
            userId: a.userId,
            type: 'deal.status_changed',
            title: `${name} is now ${String(d.status)}`,
            message: `The status of ${name} changed from ${String(d.previous_status ?? 'unknown')} to ${String(d.status)}.`,
          }));
      }
      default:
        return [];
    }
  }

  /** One notification per user (users who left the organization are skipped), each with its `notification.created` event. */
  private async notify(tx: EntityManager, scope: Scope, event: DomainEvent, deal: DealRecord, drafts: NotificationDraft[]): Promise<void> {
    if (drafts.length === 0) return;
    const users = await usersById(
      tx,
      scope.organizationId,
      drafts.map((n) => n.userId),
    );
    const made = drafts
      .filter((n) => users.has(n.userId))
      .map((n) =>
        tx.create(Notification, {
          ...scopeFields(scope),
          userId: n.userId,
          dealId: deal.id,
          sourceKey: event.id,
          type: n.type,
          title: truncateText(n.title, 300),
          message: truncateText(n.message, 1000),
          createdAt: event.createdAt,
        }),
      );
    await tx.flush();
    for (const n of made) {
      recordEvent(tx, scope, 'notification.created', {
        dealId: deal.id,
        actor: event.actor,
        data: {
          notification_id: n.id,
          user_id: n.userId,
          user_email: users.get(n.userId)!.email,
          type: n.type,
          title: n.title,
          message: n.message,
          deal_id: deal.id,
          created_at: n.createdAt.toISOString(),
        },
      });
    }
  }
}
