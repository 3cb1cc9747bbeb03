import { Migration } from '@mikro-orm/migrations';

/** What the parser inferred to read a statement (date order, year, column roles, sign), with confidence and evidence. */
export class Migration20261126090000_readings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "documents" add column "readings" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "documents" drop column "readings";`);
  }
}
