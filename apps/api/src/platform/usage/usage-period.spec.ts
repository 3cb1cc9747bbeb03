import { usagePeriod } from './usage-meter';

describe('usagePeriod (the month a usage count belongs to, reused within the month)', () => {
  it('is the UTC calendar month, and moves on when the clock leaves it, either way', () => {
    const nov = usagePeriod(new Date('2026-11-30T23:59:59.999Z'));
    expect(nov.key).toBe('2026-11');
    expect(nov.start.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(nov.end.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    // the same month again: the same period
    expect(usagePeriod(new Date('2026-11-02T08:00:00Z'))).toBe(nov);
    const dec = usagePeriod(new Date('2026-12-01T00:00:00.000Z'));
    expect(dec.key).toBe('2026-12');
    expect(dec.end.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    // a test clock set back: the earlier month, not the cached one
    expect(usagePeriod(new Date('2026-11-15T12:00:00Z')).key).toBe('2026-11');
    expect(usagePeriod(new Date('2025-12-31T23:59:59Z')).key).toBe('2025-12');
    expect(Object.isFrozen(dec)).toBe(true);
  });
});
