import { Migration } from '@mikro-orm/migrations';

/** An organization's own lender names (per organization and mode), matched before the shipped directory. */
export class Migration20261129100000_lenders extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "lenders" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "name" varchar(200) not null, "aliases" jsonb not null default '[]', "kind" varchar(16) not null, "directory_id" varchar(64) null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "lenders" add constraint "lenders_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(`create unique index "lenders_name_unique" on "lenders" ("organization_id", "livemode", lower("name"));`);
    this.addSql(
      `create index "lenders_organization_id_livemode_created_at_index" on "lenders" ("organization_id", "livemode", "created_at", "id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "lenders" cascade;`);
  }
}
