import { EntityManager } from '@mikro-orm/postgresql';

const managers = new WeakMap<UnitOfWork, EntityManager>();

/**
 * A piece of work on the database: a scoped entity manager (its tenant filters set by
 * `Database.unitOfWork`), the platform's unscoped one (`Database.systemUnitOfWork`), or a
 * transaction opened on either. Services hold one and
 * hand it to repositories (and to `recordEvent`), so a change and its event commit together;
 * only repositories and the platform reach the entity manager inside (`entityManagerOf`), and the
 * lint keeps the ORM out of services (docs/architecture.md, "Layers").
 */
export class UnitOfWork {
  private constructor() {}

  static of(em: EntityManager): UnitOfWork {
    const uow = new UnitOfWork();
    managers.set(uow, em);
    return uow;
  }

  /** Runs `work` in a transaction (`EntityManager.transactional`); commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (tx: UnitOfWork) => Promise<T>): Promise<T> {
    return entityManagerOf(this).transactional((tx) => work(UnitOfWork.of(tx as EntityManager)));
  }

  /** Writes pending changes now (new rows get their ids); the commit flushes anyway. */
  flush(): Promise<void> {
    return entityManagerOf(this).flush();
  }
}

/** The entity manager of a unit of work: for repositories and the platform only. */
export function entityManagerOf(uow: UnitOfWork): EntityManager {
  const em = managers.get(uow);
  if (!em) throw new Error('not a unit of work');
  return em;
}
