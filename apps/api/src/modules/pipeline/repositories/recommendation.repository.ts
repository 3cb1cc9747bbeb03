import { QueryOrder, RequiredEntityData } from '@mikro-orm/core';
import { Injectable } from '@nestjs/common';
import { Scope, scopeFields } from '../../../platform/database/tenant';
import { entityManagerOf, UnitOfWork } from '../../../platform/database/unit-of-work';
import { RecommendationRecord } from '../entities/recommendation.entity';

/** The stored recommendations of deals (one row per generation; the newest is current). */
@Injectable()
export class RecommendationRepository {
  /** A new recommendation, written with the unit of work. */
  create(uow: UnitOfWork, fields: RequiredEntityData<RecommendationRecord>): RecommendationRecord {
    const em = entityManagerOf(uow);
    const record = em.create(RecommendationRecord, fields);
    em.persist(record);
    return record;
  }

  /** The deal's newest recommendation in the scope, read again from the database, or null. */
  latestForDeal(uow: UnitOfWork, scope: Scope, dealId: number): Promise<RecommendationRecord | null> {
    return entityManagerOf(uow).findOne(
      RecommendationRecord,
      { ...scopeFields(scope), dealId },
      { filters: false, orderBy: [{ generatedAt: QueryOrder.DESC }, { id: QueryOrder.DESC }], refresh: true },
    );
  }
}
