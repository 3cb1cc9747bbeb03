import { Migration } from '@mikro-orm/migrations';

/**
 * Where each transaction was read (its page and the boxes of its printed lines, in PDF points) and
 * the named problems with its own cells (an impossible date, an amount the running balance
 * contradicts). Rows read before it have neither (null: the API answers source null and no warnings).
 */
export class Migration20261128100000_transaction_source extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "transactions" add column "source" jsonb null, add column "row_warnings" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "transactions" drop column "source", drop column "row_warnings";`);
  }
}
