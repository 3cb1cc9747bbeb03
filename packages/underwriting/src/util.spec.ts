import { classifyFrequency } from './frequency';
import { gradeFor, revenueTrendPct } from './scores';
import { dayNumber, dayToDate, formatMoney, median, monthsFromDays, round2 } from './util';

describe('util', () => {
  it('day numbers round-trip, across a leap day', () => {
    expect(dayNumber('2024-03-01') - dayNumber('2024-02-28')).toBe(2);
    expect(dayNumber('2023-03-01') - dayNumber('2023-02-28')).toBe(1);
    expect(dayToDate(dayNumber('2024-02-29'))).toBe('2024-02-29');
    expect(dayNumber('2023-02-30')).toBe(dayNumber('2023-02-28')); // printed impossible day -> month end
    expect(() => dayNumber('2023-13-01')).toThrow(RangeError);
    expect(() => dayNumber('2023-01-32')).toThrow(RangeError);
    expect(() => dayNumber('03/01/2024')).toThrow(RangeError);
  });
  it('monthsFromDays = round(days / 30.4375), at least 1', () => {
    expect([0, 1, 15, 29, 31, 45, 46, 366, 396].map(monthsFromDays)).toEqual([0, 1, 1, 1, 1, 1, 2, 12, 13]);
  });
  it('round2 rounds half away from zero; median; money', () => {
    expect([round2(1.005), round2(-1.005), round2(2.344), round2(-0.001)]).toEqual([1.01, -1.01, 2.34, 0]);
    expect([median([]), median([3, 1, 2]), median([4, 1, 3, 2])]).toEqual([0, 2, 2.5]);
    expect([formatMoney(1234567.5), formatMoney(-35), formatMoney(0.004)]).toEqual(['$1,234,567.50', '-$35.00', '$0.00']);
  });
});

describe('scores helpers', () => {
  it('classifyFrequency by median gap', () => {
    const d = (xs: number[]) => xs;
    expect(classifyFrequency(d([0, 1, 2, 3, 4, 7, 8]))).toBe('daily'); // weekday debits with a weekend gap
    expect(classifyFrequency(d([0, 7, 14, 21]))).toBe('weekly');
    expect(classifyFrequency(d([0, 14, 28]))).toBe('biweekly');
    expect(classifyFrequency(d([0, 31, 59, 90]))).toBe('monthly');
    expect(classifyFrequency(d([0, 20, 40]))).toBe('irregular');
    expect(classifyFrequency(d([5]))).toBe('irregular');
  });
  it('revenueTrendPct = least-squares slope / mean x 100', () => {
    // 100, 110, 120: slope 10, mean 110 -> 9.0909 %
    expect(
      revenueTrendPct([
        { ordinal: 0, rate: 100 },
        { ordinal: 1, rate: 110 },
        { ordinal: 2, rate: 120 },
      ]),
    ).toBeCloseTo(9.0909, 3);
    // a missing month in between: x = 0, 2 -> slope (120 - 100) / 2 = 10 per month, mean 110
    expect(
      revenueTrendPct([
        { ordinal: 0, rate: 100 },
        { ordinal: 2, rate: 120 },
      ]),
    ).toBeCloseTo(9.0909, 3);
    expect(revenueTrendPct([{ ordinal: 0, rate: 100 }])).toBeNull();
    expect(
      revenueTrendPct([
        { ordinal: 0, rate: 0 },
        { ordinal: 1, rate: 0 },
      ]),
    ).toBeNull();
  });
  it('gradeFor', () => {
    const m = { a: 80, b: 65, c: 50, d: 35 };
    expect([100, 80, 79.99, 65, 50, 35, 34.99].map((s) => gradeFor(s, m))).toEqual(['A', 'A', 'B', 'B', 'C', 'D', 'F']);
  });
});
