import { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../platform/auth/auth-context';
import { ApiError } from '../../platform/errors/api-error';
import { User } from '../auth/auth.entities';

/** Comments, notifications and `/me` belong to a person: a credential without a user (an organization API key) is 403. */
export function requireUser(auth: AuthContext): number {
  if (auth.userId === null) {
    throw ApiError.forbidden('This endpoint acts for a user: use a session, or an API key or OAuth client created by a user');
  }
  return auth.userId;
}

/** The organization's users with these ids (users are not filter-scoped: the organization is named here). */
export async function usersById(em: EntityManager, organizationId: number, ids: Iterable<number>): Promise<Map<number, User>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const users = await em.find(User, { id: { $in: unique }, organizationId });
  return new Map(users.map((u) => [u.id, u]));
}

export const displayName = (user: Pick<User, 'name' | 'email'> | undefined | null): string | null => user?.name ?? user?.email ?? null;
