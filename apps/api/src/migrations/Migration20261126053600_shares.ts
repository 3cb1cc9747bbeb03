import { Migration } from '@mikro-orm/migrations';

/** Share links (a deal's read-only public summary behind an opaque token); the CSV exports' keyset index. */
export class Migration20261126053600_shares extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "share_links" ("id" serial primary key, "organization_id" int not null, "livemode" boolean not null, "deal_id" int not null, "token" varchar(64) not null, "label" varchar(255) null, "password_hash" text null, "expires_at" timestamptz null, "revoked_at" timestamptz null, "view_count" int not null default 0, "last_viewed_at" timestamptz null, "created_by" varchar(64) not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`alter table "share_links" add constraint "share_links_token_unique" unique ("token");`);
    this.addSql(`create index "share_links_deal_id_id_index" on "share_links" ("deal_id", "id");`);
    this.addSql(
      `alter table "share_links" add constraint "share_links_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "share_links" add constraint "share_links_deal_id_foreign" foreign key ("deal_id") references "deals" ("id") on delete cascade;`,
    );
    // CSV exports page through a deal's transactions by (date, upload order, position, id).
    this.addSql(`create index "transactions_export_keyset_index" on "transactions" ("deal_id", "date", "document_id", "position", "id");`);
  }
}
