import { EntityMetadata, MikroORM, ReferenceKind } from '@mikro-orm/core';
import { Pool, type PoolConfig } from 'pg';
import { ServerPostgreSqlDriver } from './drivers';
import { ORG_FILTER, Scope, TENANT_FILTER } from './tenant';

/** Connections the reader's own pool may open (PostgreSQL only), on top of the ORM's pool. */
export const READER_POOL_MAX = 10;
/**
 * Distinct statements the reader prepares (on each connection, named `ll_r<generation>_<n>`); the
 * reads are built from code, not from input, so there are a few dozen: past this bound they are
 * sent unprepared.
 */
export const READER_MAX_PREPARED = 256;

/** A SELECT on one scoped entity's table; `?` placeholders in `where`, bound from `params`. */
export interface ScopedSelect<T> {
  /** entity properties to read (default: every column); results use the property names */
  columns?: readonly (keyof T & string)[];
  /** property names not to read (large JSON a view does not show) */
  exclude?: readonly (keyof T & string)[];
  /** extra SQL select items, read as they are (`count(*)::int as "total"`); replaces `columns` */
  raw?: string;
  /** bound to the `?` placeholders of `raw` */
  rawParams?: unknown[];
  /** extra condition, ANDed with the scope condition */
  where?: string;
  params?: unknown[];
  /**
   * Instead of rows: `count(*)` of the matching rows, counted up to this many (`select count(*)
   * from (select 1 ... limit n)`), read from an index where one covers the condition. Result:
   * `[{ total }]`.
   */
  countUpTo?: number;
  /** `order by` body, trusted SQL built from an allow-list */
  orderBy?: string;
  /**
   * false: sent unprepared, so PostgreSQL plans it with the values known (a custom plan). For
   * statements whose best plan depends on the values (a search pattern: a rare word reads a few
   * index entries, a word in every row is better filtered along the list's order index).
   */
  prepare?: boolean;
  limit?: number;
  offset?: number;
}

interface RawConnection {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

interface KnexClient {
  acquireConnection(): Promise<RawConnection>;
  releaseConnection(connection: RawConnection): Promise<unknown>;
  config: { connection?: unknown; pool?: { max?: number } };
}

/**
 * Tenant-scoped reads for hot read paths (docs/performance.md): one SQL statement sent straight to
 * a pooled driver connection, rows returned as plain objects with the entity's property names and
 * types, no query builder, no hydration, no identity map. The organization (and, for tenant-scoped
 * entities, mode) condition is added here from the entity's filter, exactly as the ORM filters add
 * it on every other read; an entity with neither filter is refused, so this cannot read across
 * organizations. Driver errors go through the driver's scrubbing (no values in messages).
 */
export class ScopedReader {
  private readonly selects = new Map<string, { list: string; dates: string[] }>();
  /**
   * On PostgreSQL, reads go through a pg Pool of their own, opened with the ORM's own connection
   * settings (the knex client's): taking a connection from the ORM's knex pool (tarn) costs a
   * timer, four promises and ~4 KB of garbage per query, a tenth of a fast read's CPU besides
   * the query (docs/performance.md, session 6). PGlite (one in-process connection) keeps the ORM's.
   * Opened at the first read, closed by close().
   */
  private pool: Pool | null | undefined;
  /**
   * Statement names by SQL text. On the reader's pool every read is a named prepared statement:
   * PostgreSQL parses and plans it once per connection, not on every read, which for the deal
   * detail is most of the server's CPU for the query (~160 against ~50 us here; docs/performance.md,
   * session 7). `generation` renames them all when PostgreSQL refuses a prepared statement (a
   * migration changed a column's type under it, or a pooler dropped it): each connection prepares
   * the statement again under its new name.
   */
  private readonly statements = new Map<string, string>();
  private generation = 0;

  /** `prepare: false` sends every read unprepared (PgBouncer in transaction mode before 1.21). */
  constructor(
    private readonly orm: MikroORM,
    private readonly options: { prepare: boolean } = { prepare: true },
  ) {}

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.end();
  }

  async rows<T extends object>(scope: Scope, entity: new (...args: never[]) => T, q: ScopedSelect<T> = {}): Promise<T[]> {
    const { sql, values, dates } = this.statement(scope, entity, q);
    const rows = (await this.execute(sql, values, q.prepare !== false)) as Record<string, unknown>[];
    // The PostgreSQL driver hands timestamps over as text (MikroORM's type parsers); PGlite as Dates.
    if (dates.length) {
      const platform = this.orm.em.getPlatform();
      for (const row of rows)
        for (const name of dates) if (typeof row[name] === 'string') row[name] = platform.parseDate(row[name] as string);
    }
    return rows as T[];
  }

  /**
   * PostgreSQL's estimate of how many rows the select would return (the planner's, from the
   * table's statistics: no row is read), for counts too large to make exactly on every request.
   */
  async estimate<T extends object>(scope: Scope, entity: new (...args: never[]) => T, q: ScopedSelect<T> = {}): Promise<number> {
    const { sql, values } = this.statement(scope, entity, { ...q, raw: '1', countUpTo: undefined });
    const [row] = (await this.execute(`explain (format json) ${sql}`, values, false)) as { 'QUERY PLAN': unknown }[];
    const plan = typeof row['QUERY PLAN'] === 'string' ? JSON.parse(row['QUERY PLAN']) : row['QUERY PLAN'];
    return Math.round(Number((plan as [{ Plan: { 'Plan Rows': number } }])[0].Plan['Plan Rows']) || 0);
  }

  /** The SQL of a scoped select, its values, and the properties to read as Dates. */
  private statement<T extends object>(
    scope: Scope,
    entity: new (...args: never[]) => T,
    q: ScopedSelect<T>,
  ): { sql: string; values: unknown[]; dates: string[] } {
    const meta = this.orm.getMetadata().get<T>(entity.name);
    const filter = meta.filters[TENANT_FILTER] ? 'tenant' : meta.filters[ORG_FILTER] ? 'org' : null;
    if (!filter) throw new Error(`${entity.name} is not organization-scoped: ScopedReader refuses it`);
    // the scope's parameters first ($1, $2), so the select list's and the condition's come after them
    const values: unknown[] = filter === 'tenant' ? [scope.organizationId, scope.livemode] : [scope.organizationId];
    const scoped = filter === 'tenant' ? `"organization_id" = $1 and "livemode" = $2` : `"organization_id" = $1`;
    const counting = q.countUpTo !== undefined;
    const select =
      q.raw !== undefined || counting ? { list: counting ? '1' : bind(q.raw!, q.rawParams, values), dates: [] } : this.selectList(meta, q);
    let sql = `select ${select.list} from "${meta.tableName}" where ${scoped}`;
    if (q.where) sql += ` and (${bind(q.where, q.params, values)})`;
    if (counting) {
      values.push(q.countUpTo);
      return { sql: `select count(*)::int as "total" from (${sql} limit $${values.length}) as "counted"`, values, dates: [] };
    }
    if (q.orderBy) sql += ` order by ${q.orderBy}`;
    if (q.limit !== undefined) {
      values.push(q.limit);
      sql += ` limit $${values.length}`;
    }
    if (q.offset) {
      values.push(q.offset);
      sql += ` offset $${values.length}`;
    }
    return { sql, values, dates: select.dates };
  }

  /** The select list, cached per entity and column set: `"business_name" as "businessName"`, numerics as float8 (the entity reads them as numbers). */
  private selectList<T>(meta: EntityMetadata<T>, q: ScopedSelect<T>): { list: string; dates: string[] } {
    const cacheKey = `${meta.className}|${q.columns?.join(',') ?? '*'}|${q.exclude?.join(',') ?? ''}`;
    let select = this.selects.get(cacheKey);
    if (select === undefined) {
      const wanted = q.columns ? new Set<string>(q.columns) : null;
      const excluded = new Set<string>(q.exclude ?? []);
      const props = meta.props.filter(
        (p) =>
          p.kind === ReferenceKind.SCALAR &&
          p.persist !== false &&
          p.fieldNames?.length === 1 &&
          (!wanted || wanted.has(p.name)) &&
          !excluded.has(p.name),
      );
      const list = props
        .map((p) => {
          const numeric = /^(numeric|decimal)/i.test(p.columnTypes?.[0] ?? '');
          return `"${p.fieldNames[0]}"${numeric ? '::float8' : ''} as "${p.name}"`;
        })
        .join(', ');
      const dates = props.filter((p) => /^timestamp/i.test(p.columnTypes?.[0] ?? '')).map((p) => p.name);
      select = { list, dates };
      this.selects.set(cacheKey, select);
    }
    return select;
  }

  private async execute(sql: string, values: unknown[], prepare = true): Promise<unknown[]> {
    const driver = this.orm.em.getDriver();
    const client = (driver.getConnection() as unknown as { getKnex(): { client: KnexClient } }).getKnex().client;
    if (this.pool === undefined)
      this.pool = driver instanceof ServerPostgreSqlDriver ? openReaderPool(client.config.connection, client.config.pool?.max) : null;
    if (this.pool) {
      // A read is safe to repeat: one sent on a connection the server had already ended (a restart,
      // a failover; the pool learns it only when that connection fails) goes to another one, and
      // one whose prepared statement PostgreSQL no longer accepts is prepared again, once.
      let renamed = false;
      for (let attempt = 0; ; attempt++) {
        try {
          return (await this.pool.query({ name: prepare ? this.statementName(sql) : undefined, text: sql, values })).rows;
        } catch (err) {
          if (attempt < READER_POOL_MAX && lostConnection(err)) continue;
          if (!renamed && stalePreparedStatement(err)) {
            renamed = true;
            this.generation++;
            this.statements.clear();
            continue;
          }
          throw driver.convertException(err as Error);
        }
      }
    }
    const connection = await client.acquireConnection();
    try {
      return (await connection.query(sql, values)).rows;
    } catch (err) {
      throw driver.convertException(err as Error);
    } finally {
      await client.releaseConnection(connection);
    }
  }

  /** The name `sql` is prepared under on the reader's connections, or undefined: sent unprepared. */
  private statementName(sql: string): string | undefined {
    if (!this.options.prepare) return undefined;
    let name = this.statements.get(sql);
    if (name === undefined && this.statements.size < READER_MAX_PREPARED) {
      name = `ll_r${this.generation}_${this.statements.size}`;
      this.statements.set(sql, name);
    }
    return name;
  }
}

/** `text` with its `?` placeholders numbered after `values` (`$3`...), and `params` appended to `values`. */
function bind(text: string, params: unknown[] = [], values: unknown[]): string {
  let next = 0;
  const numbered = text.replace(/\?/g, () => {
    values.push(params[next++]);
    return `$${values.length}`;
  });
  if (next !== params.length) throw new Error(`ScopedReader: ${params.length} params for ${next} placeholders`);
  return numbered;
}

/**
 * PostgreSQL refuses a prepared statement it once accepted: its result columns changed type (a
 * migration ran under a running server: "cached plan must not change result type"), or the
 * statement is gone (a pooler reset the session).
 */
function stalePreparedStatement(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: string; message?: string };
  return code === '26000' || (code === '0A000' && /cached plan must not change result type/.test(message ?? ''));
}

/** The connection was ended by the server, or broke, before the statement ran: another one may run it. */
function lostConnection(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: string; message?: string };
  return (
    code === '57P01' || // admin_shutdown: terminated by an administrator, or a server shutting down
    code === '57P02' || // crash_shutdown
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    (code === undefined && /^Connection terminated/.test(message ?? ''))
  );
}

/** The reader pool's connections, as pg_stat_activity lists them. */
export const READER_APPLICATION_NAME = 'ledgerlens-reader';

/** `max`: the ORM pool's size (DATABASE_POOL_MAX), so a process holds at most twice that. */
function openReaderPool(connection: unknown, max = READER_POOL_MAX): Pool | null {
  // settings computed per connection (a function: a password callback) stay with the ORM's pool
  if (!connection || typeof connection !== 'object') return null;
  const pool = new Pool({
    ...(connection as PoolConfig),
    // knex keeps the password as a hidden (non-enumerable) property, which the spread above misses:
    // without it a server that asks for one (scram-sha-256) refuses every read
    password: (connection as PoolConfig).password,
    application_name: READER_APPLICATION_NAME,
    max,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection the server drops (restart, failover) is removed from the pool, which opens
  // another for the next read; without a listener the pool's 'error' event would end the process.
  pool.on('error', () => undefined);
  return pool;
}
