import { redactUrl, scrubSqlError, scrubSqlText } from './redact';

describe('redactUrl', () => {
  it.each([
    ['/v1/deals?token=abc&page=2', '/v1/deals?token=[redacted]&page=2'],
    ['/v1/deals?api_key=ll_live_x&x=1', '/v1/deals?api_key=[redacted]&x=1'],
    [
      '/x?ACCESS_TOKEN=a&client_secret=b&password=c&apikey=d&X-API-Key=e',
      '/x?ACCESS_TOKEN=[redacted]&client_secret=[redacted]&password=[redacted]&apikey=[redacted]&X-API-Key=[redacted]',
    ],
    ['/x?api%5Fkey=a', '/x?api%5Fkey=[redacted]'],
    ['/x?q=ll_live_abcdefghijklmnop', '/x?q=[redacted]'],
    ['/x?q=sess_abcdefghijklmnopqrstu', '/x?q=[redacted]'],
    ['/x?q=bakery&page=1', '/x?q=bakery&page=1'],
    ['/x?%E0%A4%A=1&token', '/x?%E0%A4%A=1&token'],
    ['/v1/deals', '/v1/deals'],
    // share tokens are bearer credentials: in the path (any spelling of it) and in a query value
    ['/v1/share/shr_AbCdEfGhIjKlMnOpQrStUvWxYz012345', '/v1/share/[redacted]'],
    ['/share/shr_AbCdEfGhIjKlMnOpQrStUvWxYz012345?x=1', '/share/[redacted]?x=1'],
    ['/v1/%73hare/%73hr_AbCdEfGhIjKlMnOpQrStUvWxYz012345/', '/v1/%73hare/[redacted]/'],
    ['/share/shr_Ab%43dEfGhIjKlMnOpQrStUvWxYz012345', '/share/[redacted]'],
    ['/x?q=shr_AbCdEfGhIjKlMnOpQrStUvWxYz012345', '/x?q=[redacted]'],
    ['/v1/share/42', '/v1/share/42'],
    ['/v1/deals/7/share_links', '/v1/deals/7/share_links'],
    ['/v1/keys/ll_live_abcdefghijklmnop', '/v1/keys/[redacted]'],
  ])('%s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});

describe('scrubSqlError', () => {
  it('keeps the statement shape and the column, drops the values', () => {
    const err = Object.assign(
      new Error(`select * from "api_keys" where "key_hash" = 'deadbeef' and id = 7 - duplicate key value violates unique constraint "k"`),
      {
        detail: 'Key (key_hash)=(deadbeef) already exists.',
        query: 'select ... deadbeef',
        params: ['deadbeef'],
      },
    );
    scrubSqlError(err);
    expect(err.message).toBe(
      'select * from "api_keys" where "key_hash" = ? and id = ? - duplicate key value violates unique constraint "k"',
    );
    expect(err.stack).not.toContain('deadbeef');
    expect(err.detail).toBe('Key (key_hash)=(?) already exists.');
    expect(JSON.stringify({ ...err })).not.toContain('deadbeef');
  });

  it('cuts quoted values from server messages and leaves other errors alone', () => {
    expect(scrubSqlText(`select $1 - invalid input syntax for type integer: "secret"`)).toBe(
      'select $1 - invalid input syntax for type integer: "?"',
    );
    expect(scrubSqlText("Cannot find module 'x' - 2")).toBe("Cannot find module 'x' - 2");
  });
});
