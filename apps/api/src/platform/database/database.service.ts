import { MikroORM } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { ORG_FILTER, Scope, TENANT_FILTER } from './tenant';

/**
 * Hands out entity managers. Requests and jobs each work in their own fork; a scoped fork has
 * the organization + mode filters set, so every query on it is scoped without asking.
 */
@Injectable()
export class Database {
  constructor(readonly orm: MikroORM) {}

  forScope(scope: Scope): EntityManager {
    const em = this.orm.em.fork({ clear: true }) as EntityManager;
    em.setFilterParams(TENANT_FILTER, scope);
    em.setFilterParams(ORG_FILTER, scope);
    return em;
  }

  /** An unscoped fork for the platform (authentication lookups, outbox, idempotency): queries on scoped entities must pass `filters: false`. */
  system(): EntityManager {
    return this.orm.em.fork({ clear: true }) as EntityManager;
  }

  async ping(): Promise<void> {
    await this.orm.em.fork().getConnection().execute('select 1');
  }
}
