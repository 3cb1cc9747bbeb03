const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * At most `max` UTF-16 code units of `text`, cut between grapheme clusters: never inside a
 * surrogate pair (a lone surrogate is not valid text, and PostgreSQL refuses it in json) nor
 * between a character and its combining marks or an emoji and its modifiers. When not even the
 * first cluster fits, the cut falls on the last code point boundary instead.
 */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  for (const { index, segment } of graphemes.segment(text)) {
    if (index + segment.length > max) break;
    end = index + segment.length;
  }
  if (end > 0) return text.slice(0, end);
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** `text` cut to at most `max` code units with an ellipsis (counted) when it was longer. */
export function excerptOf(text: string, max: number): string {
  return text.length > max ? `${truncateText(text, max - 1)}…` : text;
}
