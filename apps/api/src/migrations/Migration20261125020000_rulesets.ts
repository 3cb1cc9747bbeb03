import { Migration } from '@mikro-orm/migrations';

/**
 * Rulesets (flat Form A or factor-list Form B, per organization + mode) and stored
 * recommendations with a snapshot of the ruleset they were computed with.
 */
export class Migration20261125020000_rulesets extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "rulesets" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "name" varchar(200) not null, "description" text null, "kind" varchar(16) not null, "definition" jsonb not null, "is_default" boolean not null default false, "version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "rulesets" add constraint "rulesets_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    // At most one default per organization + mode, whatever the application does.
    this.addSql(`create unique index "rulesets_one_default" on "rulesets" ("organization_id", "livemode") where "is_default";`);
    this.addSql(`create unique index "rulesets_name_unique" on "rulesets" ("organization_id", "livemode", lower("name"));`);
    this.addSql(
      `create index "rulesets_organization_id_livemode_created_at_index" on "rulesets" ("organization_id", "livemode", "created_at", "id");`,
    );
    this.addSql(
      `create table "recommendations" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "deal_id" int not null, "ruleset_id" int null, "ruleset_name" varchar(200) not null, "ruleset_kind" varchar(16) not null, "ruleset_version" int not null, "ruleset_snapshot" jsonb not null, "result" jsonb not null, "generated_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "recommendations" add constraint "recommendations_deal_id_foreign" foreign key ("deal_id") references "deals" ("id") on delete cascade;`,
    );
    this.addSql(`create index "recommendations_deal_id_generated_at_index" on "recommendations" ("deal_id", "generated_at");`);
  }
}
