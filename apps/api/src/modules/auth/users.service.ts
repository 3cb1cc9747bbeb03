import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../platform/auth/auth-context';
import { CredentialCache } from '../../platform/auth/credential-cache';
import { hashPassword, randomToken } from '../../platform/crypto/credentials';
import { Database } from '../../platform/database/database.service';
import { ApiError, ErrorCode, validationEntry } from '../../platform/errors/api-error';
import { recordEvent } from '../../platform/events/events';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { Page, paginate, pageWindow } from '../../platform/pagination/pagination';
import { User } from './auth.entities';
import { InvitedUserDto, InviteUserDto, UpdateUserDto, UserDto } from './dto/users.dto';

const mapUser = (u: User): UserDto => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  created_at: u.createdAt.toISOString(),
});

/**
 * The organization's users, for its admins (the app's settings): list, invite with a first
 * password shown once, change a role or name. Users are not filter-scoped (login finds them by
 * email before any scope exists), so every query here names the caller's organization; a user of
 * another organization is 404. Users are live records: a test-mode credential sees none (an empty
 * list, 404 for an id) and invites none. Each change is an audited event.
 */
@Injectable()
export class UsersService {
  constructor(
    private readonly db: Database,
    private readonly events: EventDispatcher,
    private readonly credentials: CredentialCache,
  ) {}

  list(auth: AuthContext, query: { page?: number; per_page?: number }): Promise<Page<UserDto>> {
    const em = this.db.system();
    // a test-mode credential sees no users (id 0 matches none)
    const where = { organizationId: auth.livemode ? auth.organizationId : 0 };
    return paginate(
      pageWindow(query),
      () => em.count(User, where),
      async (offset, limit) => (await em.find(User, where, { orderBy: { id: 'asc' }, offset, limit })).map(mapUser),
    );
  }

  async invite(auth: AuthContext, dto: InviteUserDto): Promise<InvitedUserDto> {
    if (!auth.livemode) throw ApiError.forbidden('Users are invited with a live-mode credential');
    const email = dto.email.trim().toLowerCase();
    const password = randomToken(12);
    const passwordHash = await hashPassword(password);
    const user = await this.db.system().transactional(async (em) => {
      if (await em.count(User, { email }))
        throw new ApiError(ErrorCode.DUPLICATE_RESOURCE, `A user with email ${email} already exists`, [
          validationEntry('body', ['email'], 'already in use', 'value_error.duplicate'),
        ]);
      const created = em.create(User, {
        organizationId: auth.organizationId,
        email,
        name: dto.name?.trim() || null,
        passwordHash,
        role: dto.role,
      });
      await em.flush();
      recordEvent(em, auth, 'user.invited', { actor: auth.actor, data: { user_id: created.id, email, role: dto.role } });
      return created;
    });
    this.events.notify();
    return { user: mapUser(user), temporary_password: password };
  }

  async update(auth: AuthContext, id: number, dto: UpdateUserDto): Promise<UserDto> {
    const user = await this.db.system().transactional(async (em) => {
      const u = auth.livemode ? await em.findOne(User, { id, organizationId: auth.organizationId }) : null;
      if (!u) throw ApiError.notFound('User');
      const previous = u.role;
      if (dto.role && dto.role !== u.role && u.role === 'admin') {
        const admins = await em.count(User, { organizationId: auth.organizationId, role: 'admin' });
        if (admins <= 1) throw ApiError.conflict('The organization keeps at least one admin: make another user admin first');
      }
      if (dto.role) u.role = dto.role;
      if (dto.name !== undefined) u.name = dto.name?.trim() || null;
      recordEvent(em, auth, 'user.updated', {
        actor: auth.actor,
        data: { user_id: u.id, email: u.email, role: u.role, previous_role: previous },
      });
      return u;
    });
    // the user's keys are cached with their scopes: forgotten here, other replicas within AUTH_CACHE_SECONDS
    this.credentials.forgetUser(user.id);
    this.events.notify();
    return mapUser(user);
  }
}
