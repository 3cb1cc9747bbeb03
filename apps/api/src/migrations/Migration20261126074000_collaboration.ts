import { Migration } from '@mikro-orm/migrations';

/** Collaboration: assignments, comments, document requests, the timeline, notifications and the feed's ledger of applied events. */
export class Migration20261126074000_collaboration extends Migration {
  override async up(): Promise<void> {
    const dealFk = (table: string) =>
      this.addSql(
        `alter table "${table}" add constraint "${table}_deal_id_foreign" foreign key ("deal_id") references "deals" ("id") on delete cascade;`,
      );
    const userFk = (table: string, column = 'user_id') =>
      this.addSql(
        `alter table "${table}" add constraint "${table}_${column}_foreign" foreign key ("${column}") references "users" ("id") on delete cascade;`,
      );
    this.addSql(
      `create table "deal_assignments" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "deal_id" int not null, "user_id" int not null, "role" varchar(32) not null, "assigned_by" int null, "assigned_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`alter table "deal_assignments" add constraint "deal_assignments_deal_id_user_id_unique" unique ("deal_id", "user_id");`);
    this.addSql(
      `create index "deal_assignments_user_id_organization_id_livemode_index" on "deal_assignments" ("user_id", "organization_id", "livemode");`,
    );
    dealFk('deal_assignments');
    userFk('deal_assignments');

    this.addSql(
      `create table "deal_comments" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "deal_id" int not null, "user_id" int not null, "parent_id" int null, "body" text not null, "mentions" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, "deleted_by" int null);`,
    );
    this.addSql(`create index "deal_comments_deal_id_created_at_index" on "deal_comments" ("deal_id", "created_at");`);
    dealFk('deal_comments');
    userFk('deal_comments');
    this.addSql(
      `alter table "deal_comments" add constraint "deal_comments_parent_id_foreign" foreign key ("parent_id") references "deal_comments" ("id") on delete cascade;`,
    );

    this.addSql(
      `create table "document_requests" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "deal_id" int not null, "document_type" varchar(32) not null, "message" varchar(2000) null, "status" varchar(16) not null, "due_date" varchar(10) null, "requested_by" int null, "fulfilled_document_id" int null, "fulfilled_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(`create index "document_requests_deal_id_status_index" on "document_requests" ("deal_id", "status");`);
    dealFk('document_requests');

    this.addSql(
      `create table "timeline_entries" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "deal_id" int not null, "source_key" varchar(80) not null, "event_type" varchar(64) not null, "kind" varchar(32) not null, "actor" varchar(255) not null, "actor_id" int null, "actor_name" varchar(320) not null, "description" varchar(1000) not null, "metadata" jsonb not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`alter table "timeline_entries" add constraint "timeline_entries_source_key_unique" unique ("source_key");`);
    this.addSql(`create index "timeline_entries_deal_id_created_at_index" on "timeline_entries" ("deal_id", "created_at");`);
    this.addSql(
      `create index "timeline_entries_organization_id_livemode_created_at_index" on "timeline_entries" ("organization_id", "livemode", "created_at");`,
    );
    dealFk('timeline_entries');

    this.addSql(
      `create table "notifications" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "user_id" int not null, "deal_id" int null, "source_key" varchar(80) not null, "type" varchar(64) not null, "title" varchar(300) not null, "message" varchar(1000) not null, "read" boolean not null default false, "read_at" timestamptz null, "created_at" timestamptz not null);`,
    );
    this.addSql(`alter table "notifications" add constraint "notifications_source_key_user_id_unique" unique ("source_key", "user_id");`);
    this.addSql(
      `create index "notifications_user_id_organization_id_livemode_created_at_index" on "notifications" ("user_id", "organization_id", "livemode", "created_at");`,
    );
    dealFk('notifications');
    userFk('notifications');

    this.addSql(
      `create table "collaboration_consumed_events" ("event_id" varchar(40) not null primary key, "consumed_at" timestamptz not null);`,
    );
  }
}
