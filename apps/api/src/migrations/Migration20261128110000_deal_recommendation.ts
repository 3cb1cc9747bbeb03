import { Migration } from '@mikro-orm/migrations';

/**
 * The decision of a deal's current recommendation (approve, decline, review) as a summary column,
 * so the deal list carries it without reading the report; filled from the stored reports.
 */
export class Migration20261128110000_deal_recommendation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "deals" add column "recommendation" varchar(16) null;`);
    this.addSql(
      `update "deals" set "recommendation" = "report"->'recommendation'->>'decision' where "report"->'recommendation'->>'decision' in ('approve', 'decline', 'review');`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "deals" drop column "recommendation";`);
  }
}
