import { Migration } from '@mikro-orm/migrations';

/** CRM sync: per-provider configuration (sealed credentials, interval schedule), field mappings, deal links, sync log and runs. */
export class Migration20261126073200_crm extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "crm_configs" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "provider" varchar(16) not null, "enabled" boolean not null, "is_primary" boolean not null default false, "credentials_sealed" text not null, "base_url" varchar(2048) null, "sync_interval_minutes" int not null, "last_sync_at" timestamptz null, "last_sync_status" varchar(16) null, "pulled_until" timestamptz null, "next_sync_at" timestamptz null, "connected_at" timestamptz not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "crm_configs" add constraint "crm_configs_organization_id_livemode_provider_unique" unique ("organization_id", "livemode", "provider");`,
    );
    this.addSql(`create index "crm_configs_enabled_next_sync_at_index" on "crm_configs" ("enabled", "next_sync_at");`);
    this.addSql(
      `alter table "crm_configs" add constraint "crm_configs_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `create table "crm_field_mappings" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "provider" varchar(16) not null, "position" int not null, "deal_field" varchar(64) not null, "crm_field" varchar(255) not null, "direction" varchar(16) not null);`,
    );
    this.addSql(
      `create index "crm_field_mappings_organization_id_livemode_provider_index" on "crm_field_mappings" ("organization_id", "livemode", "provider");`,
    );
    this.addSql(
      `alter table "crm_field_mappings" add constraint "crm_field_mappings_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `create table "crm_links" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "provider" varchar(16) not null, "deal_id" int not null, "external_id" varchar(255) not null, "synced_at" timestamptz null, "remote_modified_at" timestamptz null);`,
    );
    this.addSql(
      `alter table "crm_links" add constraint "crm_links_organization_id_livemode_provider_deal_id_unique" unique ("organization_id", "livemode", "provider", "deal_id");`,
    );
    this.addSql(
      `create index "crm_links_organization_id_livemode_provider_external_id_index" on "crm_links" ("organization_id", "livemode", "provider", "external_id");`,
    );
    this.addSql(
      `alter table "crm_links" add constraint "crm_links_deal_id_foreign" foreign key ("deal_id") references "deals" ("id") on delete cascade;`,
    );
    this.addSql(
      `create table "crm_sync_logs" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "deal_id" int not null, "provider" varchar(16) not null, "direction" varchar(16) not null, "status" varchar(16) not null, "external_id" varchar(255) null, "error" text null, "run_id" int null, "synced_at" timestamptz not null);`,
    );
    this.addSql(
      `create index "crm_sync_logs_organization_id_livemode_synced_at_index" on "crm_sync_logs" ("organization_id", "livemode", "synced_at");`,
    );
    this.addSql(`create index "crm_sync_logs_synced_at_index" on "crm_sync_logs" ("synced_at");`);
    this.addSql(
      `alter table "crm_sync_logs" add constraint "crm_sync_logs_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `create table "crm_sync_runs" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "status" varchar(16) not null, "direction" varchar(16) not null, "trigger" varchar(16) not null, "provider" varchar(16) null, "deal_id" int null, "records_queued" int not null, "records_synced" int not null default 0, "records_failed" int not null default 0, "details" jsonb not null, "started_at" timestamptz not null, "completed_at" timestamptz null, "duration_ms" int null);`,
    );
    this.addSql(
      `create index "crm_sync_runs_organization_id_livemode_started_at_index" on "crm_sync_runs" ("organization_id", "livemode", "started_at");`,
    );
    this.addSql(`create index "crm_sync_runs_started_at_index" on "crm_sync_runs" ("started_at");`);
    this.addSql(
      `alter table "crm_sync_runs" add constraint "crm_sync_runs_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
  }
}
