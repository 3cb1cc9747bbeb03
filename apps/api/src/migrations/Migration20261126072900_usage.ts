import { Migration } from '@mikro-orm/migrations';

/** Monthly usage counters per organization (requests, documents), when Redis does not hold them. */
export class Migration20261126072900_usage extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "usage_counters" ("organization_id" int not null, "period" varchar(7) not null, "metric" varchar(16) not null, "count" bigint not null default 0, primary key ("organization_id", "period", "metric"));`,
    );
    this.addSql(
      `alter table "usage_counters" add constraint "usage_counters_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
  }
}
