import { Migration } from '@mikro-orm/migrations';

/** Organizations, users, credentials, deals, the outbox and idempotency keys. */
export class Migration20261125000000_initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "organizations" ("id" serial primary key, "name" varchar(255) not null, "created_at" timestamptz not null);`);
    this.addSql(
      `create table "users" ("id" serial primary key, "organization_id" int not null, "email" varchar(320) not null, "name" varchar(255) null, "password_hash" text not null, "role" varchar(32) not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "users_organization_id_index" on "users" ("organization_id");`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);
    this.addSql(
      `create table "sessions" ("id" serial primary key, "user_id" int not null, "organization_id" int not null, "token_hash" varchar(64) not null, "last_used_at" timestamptz not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "sessions_user_id_index" on "sessions" ("user_id");`);
    this.addSql(`alter table "sessions" add constraint "sessions_token_hash_unique" unique ("token_hash");`);
    this.addSql(
      `create table "oauth_clients" ("id" serial primary key, "organization_id" int not null, "user_id" int null, "client_id" varchar(64) not null, "secret_hash" text not null, "name" varchar(255) not null, "scopes" jsonb not null, "revoked_at" timestamptz null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "oauth_clients_organization_id_index" on "oauth_clients" ("organization_id");`);
    this.addSql(`alter table "oauth_clients" add constraint "oauth_clients_client_id_unique" unique ("client_id");`);
    this.addSql(
      `create table "oauth_tokens" ("id" serial primary key, "client_id" int not null, "organization_id" int not null, "token_hash" varchar(64) not null, "scopes" jsonb not null, "livemode" boolean not null default true, "expires_at" timestamptz not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "oauth_tokens_client_id_index" on "oauth_tokens" ("client_id");`);
    this.addSql(`alter table "oauth_tokens" add constraint "oauth_tokens_token_hash_unique" unique ("token_hash");`);
    this.addSql(
      `create table "api_keys" ("id" serial primary key, "organization_id" int not null, "user_id" int null, "name" varchar(255) not null, "livemode" boolean not null, "key_hash" varchar(64) not null, "key_prefix" varchar(16) not null, "last4" varchar(4) not null, "scopes" jsonb not null, "expires_at" timestamptz null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "api_keys_organization_id_index" on "api_keys" ("organization_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);
    this.addSql(
      `create table "deals" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "business_name" varchar(500) not null, "dba_name" varchar(500) null, "owner_name" varchar(500) null, "industry" varchar(255) null, "entity_type" varchar(32) null, "source_type" varchar(32) null, "ein" varchar(9) null, "external_reference" varchar(255) null, "status" varchar(32) not null default 'new', "funding_amount_requested" numeric(16,2) not null, "document_count" int not null default 0, "health_score" double precision null, "health_grade" varchar(2) null, "avg_monthly_deposits" numeric(16,2) null, "avg_daily_balance" numeric(16,2) null, "screening_flags" int not null default 0, "report" jsonb null, "decision" varchar(16) null, "decided_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "deals_organization_id_livemode_updated_at_index" on "deals" ("organization_id", "livemode", "updated_at");`);
    this.addSql(
      `create table "deal_decisions" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "deal_id" int not null, "decision" varchar(16) not null, "previous_decision" varchar(16) null, "actor" varchar(64) not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "deal_decisions_deal_id_index" on "deal_decisions" ("deal_id");`);
    this.addSql(
      `create table "domain_events" ("id" serial primary key, "event_id" varchar(40) not null, "organization_id" int not null, "livemode" boolean not null, "type" varchar(64) not null, "deal_id" int null, "data" jsonb not null, "actor" varchar(255) null, "attempts" int not null default 0, "last_error" text null, "next_attempt_at" timestamptz not null, "dispatched_at" timestamptz null, "created_at" timestamptz not null);`,
    );
    this.addSql(`alter table "domain_events" add constraint "domain_events_event_id_unique" unique ("event_id");`);
    this.addSql(
      `create index "domain_events_dispatched_at_next_attempt_at_index" on "domain_events" ("dispatched_at", "next_attempt_at");`,
    );
    this.addSql(
      `create table "idempotency_keys" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "credential_key" varchar(64) not null, "key" varchar(255) not null, "method" varchar(16) not null, "path" varchar(512) not null, "state" varchar(16) not null, "response_status" int null, "response_body" jsonb null, "created_at" timestamptz not null, "expires_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "idempotency_keys" add constraint "idempotency_keys_organization_id_livemode_credent_f1d7e_unique" unique ("organization_id", "livemode", "credential_key", "key");`,
    );
    this.addSql(
      `alter table "users" add constraint "users_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "sessions" add constraint "sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "oauth_clients" add constraint "oauth_clients_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "oauth_tokens" add constraint "oauth_tokens_client_id_foreign" foreign key ("client_id") references "oauth_clients" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "api_keys" add constraint "api_keys_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "api_keys" add constraint "api_keys_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "deals" add constraint "deals_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "deal_decisions" add constraint "deal_decisions_deal_id_foreign" foreign key ("deal_id") references "deals" ("id") on delete cascade;`,
    );
    this.addSql(`create index "idempotency_keys_expires_at_index" on "idempotency_keys" ("expires_at");`);
  }
}
