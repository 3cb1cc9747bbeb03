import { Migration } from '@mikro-orm/migrations';

/** Where each header field of a statement was read (page, line, label or rule, confidence). */
export class Migration20261126055000_field_sources extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "documents" add column "field_sources" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "documents" drop column "field_sources";`);
  }
}
