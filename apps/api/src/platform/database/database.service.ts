import { MikroORM } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ScopedReader, ScopedSelect } from './scoped-read';
import { ORG_FILTER, Scope, TENANT_FILTER } from './tenant';
import { UnitOfWork } from './unit-of-work';

/**
 * Hands out entity managers. Requests and jobs each work in their own fork; a scoped fork has
 * the organization + mode filters set, so every query on it is scoped without asking.
 */
@Injectable()
export class Database implements OnApplicationShutdown {
  private readonly reader: ScopedReader;

  constructor(
    readonly orm: MikroORM,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.reader = new ScopedReader(orm, { prepare: config.databasePreparedStatements });
  }

  /** Scoped plain rows for hot read paths: no query builder, no hydration (see ScopedReader). */
  rows<T extends object>(scope: Scope, entity: new (...args: never[]) => T, select: ScopedSelect<T> = {}): Promise<T[]> {
    return this.reader.rows(scope, entity, select);
  }

  /** PostgreSQL's estimate of the number of rows a scoped select returns (ScopedReader.estimate): no row is read. */
  estimate<T extends object>(scope: Scope, entity: new (...args: never[]) => T, select: ScopedSelect<T> = {}): Promise<number> {
    return this.reader.estimate(scope, entity, select);
  }

  forScope(scope: Scope): EntityManager {
    const em = this.orm.em.fork({ clear: true }) as EntityManager;
    em.setFilterParams(TENANT_FILTER, scope);
    em.setFilterParams(ORG_FILTER, scope);
    return em;
  }

  /** A unit of work on a fresh scoped fork (`forScope`): what services hand to repositories. */
  unitOfWork(scope: Scope): UnitOfWork {
    return UnitOfWork.of(this.forScope(scope));
  }

  /** A unit of work on an unscoped fork (`system`): for the document queue's workers, which find a document's scope on its row. */
  systemUnitOfWork(): UnitOfWork {
    return UnitOfWork.of(this.system());
  }

  /** An unscoped fork for the platform (authentication lookups, outbox, idempotency): queries on scoped entities must pass `filters: false`. */
  system(): EntityManager {
    return this.orm.em.fork({ clear: true }) as EntityManager;
  }

  /** Closes the reader's own connections (the ORM closes its pool after the application). */
  async onApplicationShutdown(): Promise<void> {
    await this.reader.close();
  }

  async ping(): Promise<void> {
    await this.orm.em.fork().getConnection().execute('select 1');
  }
}
