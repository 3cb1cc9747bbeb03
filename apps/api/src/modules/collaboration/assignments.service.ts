import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Database } from '../../platform/database/database.service';
import { scopeFields } from '../../platform/database/tenant';
import { ApiError } from '../../platform/errors/api-error';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { recordEvent } from '../../platform/events/events';
import { Page, PageQueryDto, paginate, pageWindow } from '../../platform/pagination/pagination';
import { User } from '../auth/auth.entities';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { DealsService } from '../pipeline/services/deals.service';
import { Assignment } from './collaboration.entities';
import { mapAssignment } from './collaboration.mapper';
import { AssignedDealDto, AssignmentDto, CreateAssignmentDto, LongPageQueryDto, UnassignAckDto } from './dto/collaboration.dto';
import { requireUser, usersById } from './users';

/**
 * Who works on a deal. One role per user per deal (assigning again replaces it); only users of
 * the deal's organization. Writes record `deal.assigned` / `deal.unassigned`; the timeline and
 * the assignee's notification follow from those events (CollaborationFeed).
 */
@Injectable()
export class AssignmentsService {
  constructor(
    private readonly deals: DealsService,
    private readonly db: Database,
    private readonly events: EventDispatcher,
  ) {}

  async assign(auth: AuthContext, dealId: number, dto: CreateAssignmentDto): Promise<{ created: boolean; assignment: AssignmentDto }> {
    const role = dto.role ?? 'reviewer';
    const { created, changed, assignment, user } = await this.db.forScope(auth).transactional(async (tx) => {
      // The deal row lock serializes assignment writes of one deal (one role per user).
      await this.deals.findOr404(UnitOfWork.of(tx), dealId, { lock: true });
      const user = await tx.findOne(User, { id: dto.user_id, organizationId: auth.organizationId });
      if (!user) throw ApiError.notFound('User');
      const now = new Date();
      let assignment = await tx.findOne(Assignment, { dealId, userId: user.id });
      const previousRole = assignment?.role ?? null;
      const created = !assignment;
      if (!assignment) {
        assignment = tx.create(Assignment, {
          ...scopeFields(auth),
          dealId,
          userId: user.id,
          role,
          assignedBy: auth.userId,
          assignedAt: now,
          updatedAt: now,
        });
      } else if (assignment.role !== role) {
        Object.assign(assignment, { role, assignedBy: auth.userId, updatedAt: now });
      }
      const changed = previousRole !== role;
      await tx.flush();
      if (changed) {
        recordEvent(tx, auth, 'deal.assigned', {
          dealId,
          actor: auth.actor,
          data: {
            deal_id: dealId,
            assignment_id: assignment.id,
            user_id: user.id,
            role,
            previous_role: previousRole,
            assigned_by: auth.userId,
          },
        });
      }
      return { created, changed, assignment, user };
    });
    if (changed) this.events.notify();
    return { created, assignment: mapAssignment(assignment, user) };
  }

  async list(auth: AuthContext, dealId: number, query: LongPageQueryDto): Promise<Page<AssignmentDto>> {
    const em = this.db.forScope(auth);
    await this.deals.findOr404(UnitOfWork.of(em), dealId);
    return paginate(
      pageWindow(query, 100),
      () => em.count(Assignment, { dealId }),
      async (offset, limit) => {
        const rows = await em.find(Assignment, { dealId }, { orderBy: [{ assignedAt: 'asc' }, { id: 'asc' }], offset, limit });
        const users = await usersById(
          em,
          auth.organizationId,
          rows.map((a) => a.userId),
        );
        return rows.map((a) => mapAssignment(a, users.get(a.userId)));
      },
    );
  }

  /** The assignments of these deals (those the caller sees), by deal then oldest first: one query for a list page. */
  async ofDeals(auth: AuthContext, dealIds: number[]): Promise<AssignmentDto[]> {
    if (!dealIds.length) return [];
    const em = this.db.forScope(auth);
    const rows = await em.find(
      Assignment,
      { dealId: { $in: [...new Set(dealIds)] } },
      { orderBy: [{ dealId: 'asc' }, { assignedAt: 'asc' }, { id: 'asc' }], limit: 1000 },
    );
    const users = await usersById(
      em,
      auth.organizationId,
      rows.map((a) => a.userId),
    );
    return rows.map((a) => mapAssignment(a, users.get(a.userId)));
  }

  /** Form A: `DELETE /deals/{deal_id}/assignments/{user_id}`. */
  async unassignUser(auth: AuthContext, dealId: number, userId: number): Promise<UnassignAckDto> {
    const removed = await this.db.forScope(auth).transactional(async (tx) => {
      await this.deals.findOr404(UnitOfWork.of(tx), dealId, { lock: true });
      const assignment = await tx.findOne(Assignment, { dealId, userId });
      if (!assignment) throw ApiError.notFound('Assignment');
      return this.remove(tx, auth, assignment);
    });
    this.events.notify();
    return {
      status: 'ok',
      success: true,
      message: `User ${userId} is no longer assigned to deal ${dealId}`,
      id: removed.id,
      deal_id: dealId,
      user_id: userId,
    };
  }

  /** Form B: `DELETE /assignments/{assignment_id}`. */
  async unassign(auth: AuthContext, assignmentId: number): Promise<void> {
    await this.db.forScope(auth).transactional(async (tx) => {
      const assignment = await tx.findOne(Assignment, { id: assignmentId });
      if (!assignment) throw ApiError.notFound('Assignment');
      await this.deals.findOr404(UnitOfWork.of(tx), assignment.dealId, { lock: true });
      return this.remove(tx, auth, assignment);
    });
    this.events.notify();
  }

  private remove(tx: EntityManager, auth: AuthContext, assignment: Assignment): Assignment {
    const { id, dealId, userId, role } = assignment;
    tx.remove(assignment);
    recordEvent(tx, auth, 'deal.unassigned', {
      dealId,
      actor: auth.actor,
      data: { deal_id: dealId, assignment_id: id, user_id: userId, role },
    });
    return assignment;
  }

  /** The ids of the deals assigned to the caller (none for an API key without a user). */
  async assignedDealIds(auth: AuthContext): Promise<number[]> {
    if (!auth.userId) return [];
    const rows = await this.db.forScope(auth).find(Assignment, { userId: auth.userId }, { fields: ['dealId'] });
    return rows.map((a) => a.dealId);
  }

  /** `GET /me/assigned-deals`: the caller's deals in the caller's mode, most recently assigned first. */
  async assignedDeals(auth: AuthContext, query: PageQueryDto): Promise<Page<AssignedDealDto>> {
    const userId = requireUser(auth);
    const em = this.db.forScope(auth);
    return paginate(
      pageWindow(query),
      () => em.count(Assignment, { userId }),
      async (offset, limit) => {
        const rows = await em.find(Assignment, { userId }, { orderBy: [{ assignedAt: 'desc' }, { id: 'desc' }], offset, limit });
        const deals = new Map(
          (
            await this.deals.findMany(
              auth,
              rows.map((a) => a.dealId),
            )
          ).map((d) => [d.id, d]),
        );
        return rows
          .filter((a) => deals.has(a.dealId))
          .map((a) => {
            const deal = deals.get(a.dealId)!;
            return {
              id: deal.id,
              deal_id: deal.id,
              business_name: deal.businessName,
              status: deal.status,
              health_score: deal.healthScore,
              health_grade: deal.healthGrade,
              role: a.role,
              assigned_at: a.assignedAt.toISOString(),
              updated_at: deal.updatedAt.toISOString(),
            };
          });
      },
    );
  }
}
