import { jsonDepthExceeds } from './json-body';

describe('jsonDepthExceeds', () => {
  it('counts brackets outside strings only', () => {
    expect(jsonDepthExceeds('{"a":{"b":[1]}}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":{"b":[[1]]}}', 3)).toBe(true);
    expect(jsonDepthExceeds(`{"a":"${'['.repeat(100)}"}`, 1)).toBe(false);
    expect(jsonDepthExceeds(`{"a":"\\"${'{'.repeat(10)}"}`, 1)).toBe(false);
    expect(jsonDepthExceeds('['.repeat(5000) + ']'.repeat(5000), 64)).toBe(true);
  });
});
