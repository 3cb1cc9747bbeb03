import { Migration } from '@mikro-orm/migrations';

/**
 * The workbench's review: a row a person added (`origin = 'added'`; every row read before is `read`)
 * and who cleared a document's review flag, and when.
 */
export class Migration20261128120000_workbench_review extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "transactions" add column "origin" varchar(8) not null default 'read';`);
    this.addSql(`alter table "documents" add column "reviewed_at" timestamptz null, add column "reviewed_by" varchar(64) null;`);
    this.addSql(
      `create index "documents_review_queue_idx" on "documents" ("organization_id", "livemode", "processing_completed_at", "id") where "needs_review" is true;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "documents_review_queue_idx";`);
    this.addSql(`alter table "documents" drop column "reviewed_at", drop column "reviewed_by";`);
    this.addSql(`alter table "transactions" drop column "origin";`);
  }
}
