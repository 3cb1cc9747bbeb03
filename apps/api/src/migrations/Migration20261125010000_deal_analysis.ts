import { Migration } from '@mikro-orm/migrations';

/** The stored underwriting analysis of a ready deal, input to ruleset evaluation. */
export class Migration20261125010000_deal_analysis extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "deals" add column "analysis" jsonb null;`);
  }
}
