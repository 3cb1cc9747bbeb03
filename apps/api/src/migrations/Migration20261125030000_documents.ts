import { Migration } from '@mikro-orm/migrations';

/** Documents, their transactions and the append-only correction trail. */
export class Migration20261125030000_documents extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "documents" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "deal_id" int not null, "filename" varchar(500) not null, "label" varchar(255) null, "file_size" int not null, "mime_type" varchar(100) not null, "sha256" varchar(64) not null, "storage_key" varchar(255) not null, "status" varchar(32) not null default 'uploaded', "attempt" int not null default 1, "steps" jsonb not null, "error" text null, "document_type" varchar(32) null, "document_type_hint" varchar(32) null, "classification_confidence" double precision null, "page_count" int null, "bank_name" varchar(255) null, "account_number_last4" varchar(4) null, "account_type" varchar(64) null, "account_holder" varchar(255) null, "statement_start_date" varchar(10) null, "statement_end_date" varchar(10) null, "opening_balance" numeric(16,2) null, "closing_balance" numeric(16,2) null, "extraction_method" varchar(16) null, "extraction_confidence" double precision null, "extraction_model" varchar(128) null, "parser_fallback_reason" text null, "pdf_risk_level" varchar(8) null, "risk_reasons" jsonb null, "reconciliation" jsonb null, "raw_text_pages" int null, "warnings" jsonb null, "analysis" jsonb null, "transaction_count" int null, "screening_flags" int null, "processing_started_at" timestamptz null, "processing_completed_at" timestamptz null, "extracted_at" timestamptz null, "analyzed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "documents_status_index" on "documents" ("status");`);
    this.addSql(`create index "documents_deal_id_id_index" on "documents" ("deal_id", "id");`);
    this.addSql(
      `create table "transactions" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "deal_id" int not null, "document_id" int not null, "position" int not null, "date" varchar(10) not null, "description" text not null, "amount" numeric(16,2) not null, "balance" numeric(16,2) null, "transaction_type" varchar(8) not null, "category" varchar(32) not null, "is_nsf_fee" boolean not null default false, "is_overdraft_fee" boolean not null default false, "is_large_deposit" boolean not null default false, "is_large_strange" boolean not null default false, "is_repeat_charge" boolean not null default false, "is_suspicious" boolean not null default false, "screening_bucket" varchar(64) null, "flag_reason" text null, "correction_count" int not null default 0, "last_corrected_at" timestamptz null, "corrected_by" varchar(64) null);`,
    );
    this.addSql(`create index "transactions_deal_id_date_index" on "transactions" ("deal_id", "date");`);
    this.addSql(`create index "transactions_document_id_position_index" on "transactions" ("document_id", "position");`);
    this.addSql(
      `create table "transaction_corrections" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "transaction_id" int not null, "field" varchar(32) not null, "old_value" text null, "new_value" text null, "correction_reason" varchar(500) not null, "corrected_by" varchar(64) not null, "corrected_at" timestamptz not null);`,
    );
    this.addSql(`create index "transaction_corrections_transaction_id_index" on "transaction_corrections" ("transaction_id");`);
    this.addSql(
      `alter table "documents" add constraint "documents_deal_id_foreign" foreign key ("deal_id") references "deals" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "transactions" add constraint "transactions_document_id_foreign" foreign key ("document_id") references "documents" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "transactions" add constraint "transactions_deal_id_foreign" foreign key ("deal_id") references "deals" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "transaction_corrections" add constraint "transaction_corrections_transaction_id_foreign" foreign key ("transaction_id") references "transactions" ("id") on delete cascade;`,
    );
  }
}
