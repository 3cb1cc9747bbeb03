import { hasSeveralStatements, sqlShape } from './sql-text';

describe('sql-text', () => {
  it.each([
    ['select 1', false],
    ['select 1;', false],
    ["select * from deals where name ilike '%a;b%'", false],
    ["select * from deals where name = 'it''s; fine'", false],
    ["select E'a\\';b'", false],
    ['select $$a;b$$, $tag$;$tag$', false],
    ['select "odd;name" from t', false],
    ['select 1 -- trailing; comment', false],
    ['select 1 /* a; b */', false],
    ['create table a (id int); create table b (id int);', true],
    ["insert into t values ('x'); select 2", true],
  ])('%s: several statements = %s', (sql, several) => {
    expect(hasSeveralStatements(sql)).toBe(several);
  });

  it('keeps the shape of a statement and drops every value', () => {
    const sql = `insert into "api_keys" ("key_hash", "n", "t") values ('9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', 42, E'x\\'y') limit 25`;
    expect(sqlShape(sql)).toBe('insert into "api_keys" ("key_hash", "n", "t") values (?, ?, ?) limit ?');
    expect(sqlShape('select "t0".* from "deals" as "t0" where "t0"."id" = $1')).toBe(
      'select "t0".* from "deals" as "t0" where "t0"."id" = $1',
    );
  });
});
