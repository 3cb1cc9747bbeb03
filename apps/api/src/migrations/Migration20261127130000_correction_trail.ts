import { Migration } from '@mikro-orm/migrations';

/**
 * The correction audit trail outlives the transaction row it was written for: a document read
 * again replaces its rows, and the trail (append-only) must stay. It belongs to the deal (deleted
 * with it) and names its document, so a re-read can find the corrections to apply again.
 */
export class Migration20261127130000_correction_trail extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "transaction_corrections" drop constraint "transaction_corrections_transaction_id_foreign";`);
    this.addSql(`alter table "transaction_corrections" add column "deal_id" int null, add column "document_id" int null;`);
    this.addSql(
      `update "transaction_corrections" c set "deal_id" = t."deal_id", "document_id" = t."document_id" from "transactions" t where t."id" = c."transaction_id";`,
    );
    this.addSql(
      `alter table "transaction_corrections" add constraint "transaction_corrections_deal_id_foreign" foreign key ("deal_id") references "deals" ("id") on delete cascade;`,
    );
    this.addSql(`create index "transaction_corrections_document_id_index" on "transaction_corrections" ("document_id");`);
  }
}
