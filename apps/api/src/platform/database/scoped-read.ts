import { EntityMetadata, MikroORM, ReferenceKind } from '@mikro-orm/core';
import { ORG_FILTER, Scope, TENANT_FILTER } from './tenant';

/** A SELECT on one scoped entity's table; `?` placeholders in `where`, bound from `params`. */
export interface ScopedSelect<T> {
  /** entity properties to read (default: every column); results use the property names */
  columns?: readonly (keyof T & string)[];
  /** property names not to read (large JSON a view does not show) */
  exclude?: readonly (keyof T & string)[];
  /** extra SQL select items, read as they are (`count(*)::int as "total"`); replaces `columns` */
  raw?: string;
  /** extra condition, ANDed with the scope condition */
  where?: string;
  params?: unknown[];
  /** `order by` body, trusted SQL built from an allow-list */
  orderBy?: string;
  limit?: number;
  offset?: number;
}

interface RawConnection {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

interface KnexClient {
  acquireConnection(): Promise<RawConnection>;
  releaseConnection(connection: RawConnection): Promise<unknown>;
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

  constructor(private readonly orm: MikroORM) {}

  async rows<T extends object>(scope: Scope, entity: new (...args: never[]) => T, q: ScopedSelect<T> = {}): Promise<T[]> {
    const meta = this.orm.getMetadata().get<T>(entity.name);
    const filter = meta.filters[TENANT_FILTER] ? 'tenant' : meta.filters[ORG_FILTER] ? 'org' : null;
    if (!filter) throw new Error(`${entity.name} is not organization-scoped: ScopedReader refuses it`);
    const values: unknown[] = [scope.organizationId];
    const select = q.raw === undefined ? this.selectList(meta, q) : { list: q.raw, dates: [] };
    let sql = `select ${select.list} from "${meta.tableName}" where "organization_id" = $1`;
    if (filter === 'tenant') {
      values.push(scope.livemode);
      sql += ` and "livemode" = $2`;
    }
    if (q.where) {
      let next = 0;
      const params = q.params ?? [];
      const text = q.where.replace(/\?/g, () => {
        values.push(params[next++]);
        return `$${values.length}`;
      });
      if (next !== params.length) throw new Error(`ScopedReader: ${params.length} params for ${next} placeholders`);
      sql += ` and (${text})`;
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
    const rows = (await this.execute(sql, values)) as Record<string, unknown>[];
    // The PostgreSQL driver hands timestamps over as text (MikroORM's type parsers); PGlite as Dates.
    if (select.dates.length) {
      const platform = this.orm.em.getPlatform();
      for (const row of rows)
        for (const name of select.dates) if (typeof row[name] === 'string') row[name] = platform.parseDate(row[name] as string);
    }
    return rows as T[];
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

  private async execute(sql: string, values: unknown[]): Promise<unknown[]> {
    const driver = this.orm.em.getDriver();
    const connectionHolder = driver.getConnection() as unknown as { getKnex(): { client: KnexClient } };
    const client = connectionHolder.getKnex().client;
    const connection = await client.acquireConnection();
    try {
      return (await connection.query(sql, values)).rows;
    } catch (err) {
      throw driver.convertException(err as Error);
    } finally {
      await client.releaseConnection(connection);
    }
  }
}
