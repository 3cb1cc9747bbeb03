import { raw } from '@mikro-orm/core';
import { Inject, Injectable } from '@nestjs/common';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Clock } from '../../platform/clock/clock';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Database } from '../../platform/database/database.service';
import { scopeFields } from '../../platform/database/tenant';
import { ApiError, ErrorCode, validationEntry } from '../../platform/errors/api-error';
import { Page, paginate, PageQueryDto, pageWindow } from '../../platform/pagination/pagination';
import { hashPassword, randomToken, verifyPassword } from '../../platform/crypto/credentials';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { DealsService } from '../pipeline/services/deals.service';
import { isActive, SHARE_TOKEN_PREFIX, ShareLink } from './shares.entities';
import { mapShareLink, mapShareView } from './shares.mapper';
import { ActiveShareLinksDto, CreateShareDto, ShareLinkDto, ShareViewDto } from './dto/share.dto';

const HOUR_MS = 3_600_000;
/** A token that cannot be one of ours is answered without touching the database. */
const TOKEN_SHAPE = /^shr_[A-Za-z0-9_-]{16,60}$/;

const notFound = () => ApiError.notFound('Share link');

/**
 * Password guessing, per link: the first wrong passwords in a row are free; from the
 * FREE_PASSWORD_ATTEMPTS-th on, each locks the link's password check for a doubling time
 * (30 s, 1 min, 2 min, ... up to an hour). A right password clears the count.
 */
const FREE_PASSWORD_ATTEMPTS = 5;
const LOCK_BASE_SECONDS = 30;
const LOCK_MAX_SECONDS = 3600;

function passwordLocked(until: Date, now: Date): ApiError {
  const seconds = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  const err = new ApiError(ErrorCode.RATE_LIMIT_EXCEEDED, `Rate limit exceeded. Try again in ${seconds} seconds.`);
  err.retryAfter = seconds;
  return err;
}

@Injectable()
export class SharesService {
  constructor(
    private readonly deals: DealsService,
    private readonly db: Database,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(auth: AuthContext, dealId: number, dto: CreateShareDto): Promise<ShareLinkDto> {
    const now = this.clock.now();
    if (dto.expires_at && dto.expires_in_hours !== undefined) {
      throw ApiError.validation([
        validationEntry('body', ['expires_in_hours'], 'Send either expires_at or expires_in_hours, not both', 'value_error.conflict'),
      ]);
    }
    const expiresAt = dto.expires_at
      ? new Date(dto.expires_at)
      : dto.expires_in_hours !== undefined
        ? new Date(now.getTime() + dto.expires_in_hours * HOUR_MS)
        : null;
    if (expiresAt && expiresAt.getTime() <= now.getTime()) {
      throw ApiError.validation([validationEntry('body', ['expires_at'], 'expires_at must be in the future', 'value_error.date.past')]);
    }
    const passwordHash = dto.password ? await hashPassword(dto.password) : null;
    const em = this.db.forScope(auth);
    const link = await em.transactional(async (tx) => {
      await this.deals.findOr404(UnitOfWork.of(tx), dealId);
      const created = tx.create(ShareLink, {
        ...scopeFields(auth),
        dealId,
        token: `${SHARE_TOKEN_PREFIX}${randomToken(24)}`,
        label: dto.label ?? null,
        passwordHash,
        expiresAt,
        createdBy: auth.actor,
        createdAt: now,
      });
      tx.persist(created);
      return created;
    });
    return mapShareLink(link, this.config.publicUrl, now);
  }

  /** Form A: every link of the deal, expired and revoked ones included, oldest first. */
  async list(auth: AuthContext, dealId: number, query: PageQueryDto): Promise<Page<ShareLinkDto>> {
    const em = this.db.forScope(auth);
    await this.deals.findOr404(UnitOfWork.of(em), dealId);
    const now = this.clock.now();
    return paginate(
      pageWindow(query),
      () => em.count(ShareLink, { dealId }),
      async (offset, limit) =>
        (await em.find(ShareLink, { dealId }, { orderBy: { id: 'asc' }, offset, limit })).map((l) =>
          mapShareLink(l, this.config.publicUrl, now),
        ),
    );
  }

  /** Form B: the links a viewer can still open. */
  async listActive(auth: AuthContext, dealId: number): Promise<ActiveShareLinksDto> {
    const em = this.db.forScope(auth);
    await this.deals.findOr404(UnitOfWork.of(em), dealId);
    const now = this.clock.now();
    const links = await em.find(
      ShareLink,
      { dealId, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] },
      { orderBy: { id: 'asc' } },
    );
    return { data: links.map((l) => mapShareLink(l, this.config.publicUrl, now)) };
  }

  /** Revokes for good; a revoked (or foreign) link is 404, so a second revoke is too. */
  async revoke(auth: AuthContext, shareId: number): Promise<void> {
    const em = this.db.forScope(auth);
    const revoked = await em.nativeUpdate(ShareLink, { id: shareId, revokedAt: null }, { revokedAt: this.clock.now() });
    if (revoked === 0) throw notFound();
  }

  /**
   * The public view: no credential; the link's own organization and mode scope the deal. Every
   * successful view is counted by one conditional UPDATE (atomic under concurrency, and a link
   * revoked or expired in between is not counted and answers 404).
   */
  async view(token: string, password: string | undefined): Promise<ShareViewDto> {
    if (!TOKEN_SHAPE.test(token)) throw notFound();
    const system = this.db.system();
    const now = this.clock.now();
    const link = await system.findOne(ShareLink, { token }, { filters: false });
    if (!link || !isActive(link, now)) throw notFound();
    if (link.passwordHash) {
      if (!password) throw new ApiError(ErrorCode.SHARE_PASSWORD_REQUIRED, 'This share link is password protected: send X-Share-Password');
      await this.checkPassword(link, link.passwordHash, password, now);
    }
    const counted = await system.nativeUpdate(
      ShareLink,
      { id: link.id, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] },
      { viewCount: raw('view_count + 1'), lastViewedAt: now },
      { filters: false },
    );
    if (counted === 0) throw notFound();
    const deal = await this.deals.findById(this.db.unitOfWork(link), link.dealId);
    if (!deal) throw notFound();
    return mapShareView(link, deal);
  }

  /**
   * Counts the attempt before checking it, in one conditional UPDATE, so concurrent guesses each
   * take one and the attempt that reaches the free limit sets the lock the next ones meet; a
   * locked link answers 429 without checking the password (a right one included).
   */
  private async checkPassword(link: ShareLink, hash: string, password: string, now: Date): Promise<void> {
    if (link.passwordLockedUntil && link.passwordLockedUntil.getTime() > now.getTime()) throw passwordLocked(link.passwordLockedUntil, now);
    const system = this.db.system();
    const claimed: unknown[] = await system.execute(
      `update "share_links" set "failed_password_attempts" = "failed_password_attempts" + 1,
         "password_locked_until" = case when "failed_password_attempts" + 1 >= ?::int
           then ?::timestamptz + make_interval(secs => least(?::int * power(2, "failed_password_attempts" + 1 - ?::int), ?::int))
           else "password_locked_until" end
       where "id" = ? and ("password_locked_until" is null or "password_locked_until" <= ?::timestamptz)
       returning "id"`,
      [FREE_PASSWORD_ATTEMPTS, now, LOCK_BASE_SECONDS, FREE_PASSWORD_ATTEMPTS, LOCK_MAX_SECONDS, link.id, now],
      'all',
    );
    if (claimed.length === 0) {
      // locked meanwhile by a concurrent attempt
      const current = await system.findOne(ShareLink, { id: link.id }, { filters: false, refresh: true });
      throw passwordLocked(current?.passwordLockedUntil ?? new Date(now.getTime() + LOCK_BASE_SECONDS * 1000), now);
    }
    if (!(await verifyPassword(password, hash))) throw new ApiError(ErrorCode.SHARE_PASSWORD_INVALID, 'Wrong share link password');
    await system.nativeUpdate(ShareLink, { id: link.id }, { failedPasswordAttempts: 0, passwordLockedUntil: null }, { filters: false });
  }
}
