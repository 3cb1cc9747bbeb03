import { Migration } from '@mikro-orm/migrations';

/** Webhook endpoint per organization + mode, deliveries with their schedule, the attempt log; SSE replay index. */
export class Migration20261126021300_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhook_configs" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "url" varchar(2048) not null, "secret_sealed" text not null, "events" jsonb not null, "enabled" boolean not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "webhook_configs" add constraint "webhook_configs_organization_id_livemode_unique" unique ("organization_id", "livemode");`,
    );
    this.addSql(
      `alter table "webhook_configs" add constraint "webhook_configs_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `create table "webhook_deliveries" ("id" varchar(40) not null primary key, "organization_id" int not null, "livemode" boolean not null, "dedupe_key" varchar(120) not null, "event_id" varchar(40) not null, "event_type" varchar(64) not null, "deal_id" int null, "body" text not null, "status" varchar(16) not null, "attempt_number" int not null default 0, "max_attempts" int not null, "next_attempt_at" timestamptz null, "response_status" int null, "last_error" text null, "redelivery_of" varchar(40) null, "delivered_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_dedupe_key_unique" unique ("dedupe_key");`);
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(`create index "webhook_deliveries_status_next_attempt_at_index" on "webhook_deliveries" ("status", "next_attempt_at");`);
    this.addSql(
      `create index "webhook_deliveries_organization_id_livemode_created_at_index" on "webhook_deliveries" ("organization_id", "livemode", "created_at");`,
    );
    this.addSql(
      `create table "webhook_attempts" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "delivery_id" varchar(40) not null, "attempt_number" int not null, "request_url" varchar(2048) not null, "request_headers" jsonb not null, "request_body" text not null, "response_status" int null, "response_headers" jsonb null, "response_body" text null, "success" boolean not null, "error" text null, "duration_ms" int not null, "started_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "webhook_attempts" add constraint "webhook_attempts_delivery_id_foreign" foreign key ("delivery_id") references "webhook_deliveries" ("id") on delete cascade;`,
    );
    this.addSql(
      `create index "webhook_attempts_delivery_id_attempt_number_index" on "webhook_attempts" ("delivery_id", "attempt_number");`,
    );
    // SSE replay from Last-Event-ID reads the outbox by organization, mode and id.
    this.addSql(`create index "domain_events_organization_id_livemode_id_index" on "domain_events" ("organization_id", "livemode", "id");`);
  }
}
