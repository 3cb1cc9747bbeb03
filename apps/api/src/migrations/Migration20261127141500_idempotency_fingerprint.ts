import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency keys remember a fingerprint of the request that claimed them (method, route, query,
 * body), so a key reused for a different request is refused instead of replaying another answer.
 * Rows stored before it have none and replay as before.
 */
export class Migration20261127141500_idempotency_fingerprint extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "idempotency_keys" add column "request_fingerprint" varchar(64) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "idempotency_keys" drop column "request_fingerprint";`);
  }
}
