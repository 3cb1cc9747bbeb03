import { LockMode } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, ErrorCode } from '../../../platform/errors/api-error';
import { Deal } from '../entities/deal.entities';

/** The deal of the caller's scope (the entity manager's tenant filter), or 404 DEAL_NOT_FOUND. */
export async function findDealOr404(em: EntityManager, id: number, options: { lock?: boolean; refresh?: boolean } = {}): Promise<Deal> {
  const deal = await em.findOne(
    Deal,
    { id },
    { ...(options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}), ...(options.refresh ? { refresh: true } : {}) },
  );
  if (!deal) throw ApiError.notFound('Deal', ErrorCode.DEAL_NOT_FOUND);
  return deal;
}
