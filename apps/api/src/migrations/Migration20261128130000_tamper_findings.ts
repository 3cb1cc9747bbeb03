import { Migration } from '@mikro-orm/migrations';

/**
 * The content tamper findings of a document (glyph style, covered or hidden text, draw order,
 * arithmetic), each with its page, boxes, row and sentence (docs/tamper.md). Documents parsed before
 * it have none (null: the API answers an empty list).
 */
export class Migration20261128130000_tamper_findings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "documents" add column "tamper_findings" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "documents" drop column "tamper_findings";`);
  }
}
