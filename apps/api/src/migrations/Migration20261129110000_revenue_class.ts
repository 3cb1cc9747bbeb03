import { Migration } from '@mikro-orm/migrations';

/**
 * True revenue (docs/revenue.md): each deposit's revenue class and the rule that decided it, as the
 * deal's screening wrote them, whether it is a cash deposit, and the class a person set (an
 * override, kept over the rules and across a new reading). Rows written before have none: the next
 * scoring of their deal writes the class and the rule.
 */
export class Migration20261129110000_revenue_class extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "transactions" add column "revenue_class" varchar(32) null, add column "revenue_rule" text null, ` +
        `add column "is_cash_deposit" boolean not null default false, add column "revenue_class_override" varchar(32) null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "transactions" drop column "revenue_class", drop column "revenue_rule", drop column "is_cash_deposit", drop column "revenue_class_override";`,
    );
  }
}
