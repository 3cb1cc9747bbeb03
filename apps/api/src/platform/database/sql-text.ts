/**
 * A small lexer for PostgreSQL statement text, just enough to tell literals, quoted identifiers,
 * comments and statement separators apart. Used by the embedded driver (is this one statement or
 * several?) and by logging (the statement's shape without its values).
 */
type Piece = { kind: 'code' | 'literal' | 'identifier' | 'comment'; text: string };

function* pieces(sql: string): Generator<Piece> {
  let i = 0;
  let code = '';
  const flush = function* (): Generator<Piece> {
    if (code) yield { kind: 'code', text: code };
    code = '';
  };
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    let end = -1;
    let kind: Piece['kind'] | null = null;
    if (c === "'" || ((c === 'E' || c === 'e') && next === "'" && !/[\w$]/.test(sql[i - 1] ?? ''))) {
      // '...' with '' doubling; E'...' also takes backslash escapes.
      const escapes = c !== "'";
      let j = escapes ? i + 2 : i + 1;
      while (j < sql.length) {
        if (escapes && sql[j] === '\\') j += 2;
        else if (sql[j] === "'" && sql[j + 1] === "'") j += 2;
        else if (sql[j] === "'") break;
        else j++;
      }
      end = Math.min(j + 1, sql.length);
      kind = 'literal';
    } else if (c === '"') {
      let j = i + 1;
      while (j < sql.length && !(sql[j] === '"' && sql[j + 1] !== '"')) j += sql[j] === '"' ? 2 : 1;
      end = Math.min(j + 1, sql.length);
      kind = 'identifier';
    } else if (c === '-' && next === '-') {
      const j = sql.indexOf('\n', i);
      end = j === -1 ? sql.length : j;
      kind = 'comment';
    } else if (c === '/' && next === '*') {
      const j = sql.indexOf('*/', i + 2);
      end = j === -1 ? sql.length : j + 2;
      kind = 'comment';
    } else if (c === '$' && !/[\w$]/.test(sql[i - 1] ?? '')) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i))?.[0];
      if (tag) {
        const j = sql.indexOf(tag, i + tag.length);
        end = j === -1 ? sql.length : j + tag.length;
        kind = 'literal';
      }
    }
    if (kind) {
      yield* flush();
      yield { kind, text: sql.slice(i, end) };
      i = end;
    } else {
      code += c;
      i++;
    }
  }
  yield* flush();
}

/** True when the text holds more than one statement (a `;` outside literals, identifiers and comments). */
export function hasSeveralStatements(sql: string): boolean {
  let statements = 0;
  let current = false;
  for (const piece of pieces(sql)) {
    if (piece.kind === 'comment') continue;
    if (piece.kind !== 'code') {
      current = true;
      continue;
    }
    for (const part of piece.text.split(';').map((p, index) => ({ p, index }))) {
      if (part.index > 0) {
        if (current) statements++;
        current = false;
      }
      if (part.p.trim()) current = true;
    }
  }
  if (current) statements++;
  return statements > 1;
}

/** The statement with every literal and number replaced by `?`: safe to log (no key hashes, no user data). */
export function sqlShape(sql: string): string {
  let out = '';
  for (const piece of pieces(sql)) {
    if (piece.kind === 'literal') out += '?';
    else if (piece.kind === 'code') out += piece.text.replace(/(^|[^\w$."])-?\d+(\.\d+)?(e[+-]?\d+)?\b/gi, '$1?');
    else out += piece.text;
  }
  return out;
}
