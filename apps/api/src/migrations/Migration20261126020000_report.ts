import { Migration } from '@mikro-orm/migrations';

/**
 * The statement currency (parsed, or declared at upload) and the parser's review verdict for the
 * deal report, and the indexes
 * the related-deal lookups (same file, same account in another deal) use.
 */
export class Migration20261126020000_report extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "documents" add column "currency" varchar(3) null;`);
    this.addSql(`alter table "documents" add column "needs_review" boolean null, add column "review_reasons" jsonb null;`);
    this.addSql(`create index "documents_organization_id_sha256_index" on "documents" ("organization_id", "sha256");`);
    this.addSql(
      `create index "documents_organization_id_account_number_last4_index" on "documents" ("organization_id", "account_number_last4");`,
    );
  }
}
