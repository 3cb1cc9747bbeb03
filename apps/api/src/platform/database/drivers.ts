import { Configuration, DriverException } from '@mikro-orm/core';
import { AbstractSqlDriver, PostgreSqlDriver, PostgreSqlPlatform } from '@mikro-orm/postgresql';
import { PGliteConnection, PGliteKnexDialect } from 'mikro-orm-pglite';
import { scrubSqlError } from '../logging/redact';
import { hasSeveralStatements } from './sql-text';

/**
 * Our two MikroORM drivers. Both turn database errors into DriverExceptions that carry the
 * statement's shape and never its values: MikroORM inlines parameters into the SQL text, so the
 * raw message would put key hashes and user data into every log line that mentions the error.
 */
/** PostgreSQL (DATABASE_URL). */
export class ServerPostgreSqlDriver extends PostgreSqlDriver {
  override convertException(exception: Error): DriverException {
    return scrubSqlError(super.convertException(exception));
  }
}

type QueryArgs = Parameters<PGliteKnexDialect['_query']>;

/**
 * knex-pglite sends any raw statement containing a `;` through PGlite's multi-statement `exec`,
 * whose result shape the ORM does not expect: a search for "a;b" was a 500. One statement (with or
 * without a `;` in its literals) goes through the extended protocol; only real multi-statement
 * text (migrations) goes through `exec`.
 */
class EmbeddedKnexDialect extends PGliteKnexDialect {
  override async _query(connection: QueryArgs[0], obj: QueryArgs[1]): ReturnType<PGliteKnexDialect['_query']> {
    if (!obj.sql) throw new Error('The query is empty');
    obj.response =
      obj.method === 'raw' && !obj.bindings?.length && hasSeveralStatements(obj.sql)
        ? await connection.exec(obj.sql)
        : await connection.query(obj.sql, (obj.bindings ?? []) as unknown[]);
    return obj;
  }
}

class EmbeddedConnection extends PGliteConnection {
  override createKnex(): void {
    const self = this as unknown as { client: unknown; dialectDataSource: unknown; connected: boolean; config: unknown };
    self.client = (this as unknown as { createKnexClient(type: unknown): unknown }).createKnexClient(EmbeddedKnexDialect);
    const dialect = this.getKnex().client as unknown as { ormConfig: unknown; driver: unknown };
    dialect.ormConfig = self.config;
    dialect.driver = self.dialectDataSource;
    self.connected = true;
  }
}

/** The embedded PGlite engine (no DATABASE_URL). */
export class EmbeddedPGliteDriver extends AbstractSqlDriver<EmbeddedConnection> {
  constructor(config: Configuration) {
    super(config, new PostgreSqlPlatform(), EmbeddedConnection, ['knex', '@electric-sql/pglite', '@harryplusplus/knex-pglite']);
  }

  override convertException(exception: Error): DriverException {
    return scrubSqlError(super.convertException(exception));
  }
}
