import { Migration } from '@mikro-orm/migrations';

/**
 * Bulk ingest: batches and their documents; deal matching indexes (a deal's external reference is
 * unique per organization and mode, EIN looked up); webhook deliveries that are callbacks carry
 * their own URL and sealed secret.
 */
export class Migration20261126073256_ingest extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "ingest_batches" ("id" varchar(40) not null primary key, "organization_id" int not null, "livemode" boolean not null, "deal_id" int not null, "deal_matched" boolean not null, "match_method" varchar(32) not null, "total" int not null, "completed" int not null default 0, "failed" int not null default 0, "recommendation" jsonb null, "callback_url" varchar(2048) null, "callback_secret_sealed" text null, "callback_delivery_id" varchar(40) null, "completed_at" timestamptz null, "created_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "ingest_batches" add constraint "ingest_batches_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "ingest_batches" add constraint "ingest_batches_deal_id_foreign" foreign key ("deal_id") references "deals" ("id") on delete cascade;`,
    );
    this.addSql(
      `create index "ingest_batches_organization_id_livemode_deal_id_completed_at_index" on "ingest_batches" ("organization_id", "livemode", "deal_id", "completed_at");`,
    );
    this.addSql(
      `create table "ingest_batch_documents" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "batch_id" varchar(40) not null, "document_id" int not null, "position" int not null);`,
    );
    this.addSql(`alter table "ingest_batch_documents" add constraint "ingest_batch_documents_document_id_unique" unique ("document_id");`);
    this.addSql(`create index "ingest_batch_documents_batch_id_index" on "ingest_batch_documents" ("batch_id");`);
    this.addSql(
      `alter table "ingest_batch_documents" add constraint "ingest_batch_documents_batch_id_foreign" foreign key ("batch_id") references "ingest_batches" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "ingest_batch_documents" add constraint "ingest_batch_documents_document_id_foreign" foreign key ("document_id") references "documents" ("id") on delete cascade;`,
    );
    this.addSql(
      `create unique index "deals_external_reference_unique" on "deals" ("organization_id", "livemode", "external_reference") where "external_reference" is not null;`,
    );
    this.addSql(`create index "deals_organization_id_livemode_ein_index" on "deals" ("organization_id", "livemode", "ein");`);
    this.addSql(`alter table "webhook_deliveries" add column "target_url" varchar(2048) null, add column "secret_sealed" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop column "target_url", drop column "secret_sealed";`);
    this.addSql(`drop index if exists "deals_organization_id_livemode_ein_index";`);
    this.addSql(`drop index if exists "deals_external_reference_unique";`);
    this.addSql(`drop table if exists "ingest_batch_documents" cascade;`);
    this.addSql(`drop table if exists "ingest_batches" cascade;`);
  }
}
