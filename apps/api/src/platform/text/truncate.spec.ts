import { excerptOf, truncateText } from './truncate';

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('truncateText', () => {
  it('never cuts inside a surrogate pair', () => {
    const text = `${'a'.repeat(198)}😀${'b'.repeat(10)}`;
    expect(truncateText(text, 199)).toBe('a'.repeat(198));
    expect(truncateText(text, 200)).toBe(`${'a'.repeat(198)}😀`);
    expect(loneSurrogate.test(truncateText(text, 199))).toBe(false);
  });

  it('keeps a grapheme cluster whole: combining marks, skin tones, ZWJ sequences, flags', () => {
    expect(truncateText('abe\u0301cd', 3)).toBe('ab');
    expect(truncateText('ab👍🏽', 5)).toBe('ab');
    expect(truncateText('a👩‍💻', 4)).toBe('a');
    expect(truncateText('a🇫🇷b', 3)).toBe('a');
    expect(truncateText('a🇫🇷b', 5)).toBe('a🇫🇷');
  });

  it('leaves short text alone, and falls back to a code point cut for one oversized cluster', () => {
    expect(truncateText('short', 10)).toBe('short');
    const zalgo = `e${'\u0301'.repeat(20)}`;
    expect(truncateText(zalgo, 5)).toBe(zalgo.slice(0, 5));
    expect(truncateText('😀😀', 1)).toBe('');
  });
});

describe('excerptOf', () => {
  it('adds an ellipsis within the limit, on a clean cut', () => {
    const text = `${'a'.repeat(198)}😀${'b'.repeat(10)}`;
    const excerpt = excerptOf(text, 200);
    expect(excerpt).toBe(`${'a'.repeat(198)}…`);
    expect(excerpt.length).toBeLessThanOrEqual(200);
    expect(loneSurrogate.test(excerpt)).toBe(false);
    expect(excerptOf('short', 200)).toBe('short');
  });
});
