import { Migration } from '@mikro-orm/migrations';

/**
 * The workbench's review: a row a person added (`origin = 'added'`; every row read before is `read`)
 * and who cleared a document's review flag, and when; a decision's reason and an approval's offer
 * (on the deal and in its decision trail), and who decided.
 */
export class Migration20261128120000_workbench_review extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "transactions" add column "origin" varchar(8) not null default 'read';`);
    this.addSql(`alter table "documents" add column "reviewed_at" timestamptz null, add column "reviewed_by" varchar(64) null;`);
    this.addSql(
      `create index "documents_review_queue_idx" on "documents" ("organization_id", "livemode", "processing_completed_at", "id") where "needs_review" is true;`,
    );
    this.addSql(
      `alter table "deals" add column "decision_reason" text null, add column "decision_offer" jsonb null, add column "decided_by" varchar(64) null;`,
    );
    this.addSql(`alter table "deal_decisions" add column "reason" text null, add column "offer" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "deal_decisions" drop column "reason", drop column "offer";`);
    this.addSql(`alter table "deals" drop column "decision_reason", drop column "decision_offer", drop column "decided_by";`);
    this.addSql(`drop index if exists "documents_review_queue_idx";`);
    this.addSql(`alter table "documents" drop column "reviewed_at", drop column "reviewed_by";`);
    this.addSql(`alter table "transactions" drop column "origin";`);
  }
}
