import { Migration } from '@mikro-orm/migrations';

/** Share links: wrong passwords in a row and the lockout they earned (per link, shared by every replica). */
export class Migration20261127120000_share_lockout extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "share_links" add column "failed_password_attempts" int not null default 0, add column "password_locked_until" timestamptz null;`,
    );
  }
}
