import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Database } from '../../platform/database/database.service';
import { Page, PageQueryDto, paginate, pageWindow } from '../../platform/pagination/pagination';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { DealsService } from '../pipeline/services/deals.service';
import { Notification, TimelineEntry } from './collaboration.entities';
import { mapActivity, mapNotification, mapTimelineEntry } from './collaboration.mapper';
import {
  ActivityRecordDto,
  MarkReadResultDto,
  NotificationDto,
  NotificationQueryDto,
  OrgActivityEntryDto,
  TimelineEntryDto,
  TimelineQueryDto,
} from './dto/collaboration.dto';
import { requireUser } from './users';

const TIMELINE_PAGE = 50;

/** Reads of what the feed wrote: deal timelines, activity, the organization feed, notifications. */
@Injectable()
export class TimelineService {
  constructor(
    private readonly deals: DealsService,
    private readonly db: Database,
  ) {}

  async timeline(auth: AuthContext, dealId: number, query: TimelineQueryDto): Promise<Page<TimelineEntryDto>> {
    const em = this.db.forScope(auth);
    await this.deals.findOr404(UnitOfWork.of(em), dealId);
    const dir = query.order === 'asc' ? 'asc' : 'desc';
    return paginate(
      pageWindow(query, TIMELINE_PAGE),
      () => em.count(TimelineEntry, { dealId }),
      async (offset, limit) =>
        (await em.find(TimelineEntry, { dealId }, { orderBy: [{ createdAt: dir }, { id: dir }], offset, limit })).map(mapTimelineEntry),
    );
  }

  /** Form B audit records of a deal, newest first. */
  async activity(auth: AuthContext, dealId: number, query: PageQueryDto): Promise<Page<ActivityRecordDto>> {
    const em = this.db.forScope(auth);
    await this.deals.findOr404(UnitOfWork.of(em), dealId);
    return paginate(
      pageWindow(query, TIMELINE_PAGE),
      () => em.count(TimelineEntry, { dealId }),
      async (offset, limit) =>
        (await em.find(TimelineEntry, { dealId }, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], offset, limit })).map(mapActivity),
    );
  }

  /** The organization's feed (caller's mode), newest first, each line with its deal's business_name. */
  async orgActivity(auth: AuthContext, query: PageQueryDto): Promise<Page<OrgActivityEntryDto>> {
    const em = this.db.forScope(auth);
    return paginate(
      pageWindow(query),
      () => em.count(TimelineEntry, {}),
      async (offset, limit) => {
        const rows = await em.find(TimelineEntry, {}, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], offset, limit });
        const names = await this.deals.businessNames(auth, [...new Set(rows.map((r) => r.dealId))]);
        return rows.map((r) => ({ ...mapTimelineEntry(r), business_name: names.get(r.dealId) ?? '' }));
      },
    );
  }

  /** The caller's notifications in the caller's mode, newest first. */
  async notifications(auth: AuthContext, query: NotificationQueryDto): Promise<Page<NotificationDto>> {
    const userId = requireUser(auth);
    const em = this.db.forScope(auth);
    const where = { userId, ...(query.unread_only ? { read: false } : {}) };
    return paginate(
      pageWindow(query),
      () => em.count(Notification, where),
      async (offset, limit) =>
        (await em.find(Notification, where, { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], offset, limit })).map(mapNotification),
    );
  }

  /** Marks the caller's own unread notifications among the ids; others' ids and read ones are not counted. */
  async markRead(auth: AuthContext, ids: number[]): Promise<MarkReadResultDto> {
    const userId = requireUser(auth);
    const marked = await this.db
      .forScope(auth)
      .nativeUpdate(Notification, { id: { $in: [...new Set(ids)] }, userId, read: false }, { read: true, readAt: new Date() });
    return { data: { marked } };
  }
}
