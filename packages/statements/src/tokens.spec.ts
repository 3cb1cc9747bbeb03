import { findFullDates, isValidDate, parseAmount, parseDateToken, resolveYear } from './tokens';

describe('amount notations', () => {
  it.each([
    ['1,234.56', 1234.56, 0],
    ['$1,234.56', 1234.56, 0],
    ['-1,234.56', 1234.56, -1],
    ['-$1,234.56', 1234.56, -1],
    ['$-12.00', 12, -1],
    ['(1,234.56)', 1234.56, -1],
    ['($1,234.56)', 1234.56, -1],
    ['1,234.56-', 1234.56, -1],
    ['1,234.56CR', 1234.56, 1],
    ['1,234.56 CR', 1234.56, 1],
    ['987.00 DR', 987, -1],
    ['+45.10', 45.1, 1],
    ['0.99', 0.99, 0],
    ['1234567.89', 1234567.89, 0],
    ['£2,500.00', 2500, 0],
    ['€75.50', 75.5, 0],
    ['₹1,935.30', 1935.3, 0],
    ['NZ$12.40', 12.4, 0],
    ['$11,663.82CR', 11663.82, 1],
    // generators that drop a trailing zero ("1935.3")
    ['1935.3', 1935.3, 0],
    ['12.5', 12.5, 0],
  ])('%s', (tok, value, sign) => {
    expect(parseAmount(tok)).toEqual({ value, sign });
  });

  it.each(['12/31', '1234', '1,23.45', '12.345', '1,935.3', '(12.00', 'ABC', '2025-01-05', '4,000'])('rejects %s', (tok) => {
    expect(parseAmount(tok)).toBeNull();
  });
});

describe('date notations', () => {
  it.each([
    ['01/05', { month: 1, day: 5, year: null, ambiguous: true }],
    ['1/5', { month: 1, day: 5, year: null, ambiguous: true }],
    ['12-31', { month: 12, day: 31, year: null }],
    ['01/05/25', { month: 1, day: 5, year: 2025, ambiguous: true }],
    ['01/05/2025', { month: 1, day: 5, year: 2025, ambiguous: true }],
    ['19/05/19', { month: 5, day: 19, year: 2019, dayFirst: true }],
    ['14-08-2024', { month: 8, day: 14, year: 2024, dayFirst: true }],
    ['31.05.2019', { month: 5, day: 31, year: 2019, dayFirst: true }],
    ['05/05/2019', { month: 5, day: 5, year: 2019 }],
    ['12th Feb', { month: 2, day: 12, year: null }],
    ['2025-01-05', { month: 1, day: 5, year: 2025 }],
    ['Jan 05', { month: 1, day: 5, year: null }],
    ['Sept 3, 2024', { month: 9, day: 3, year: 2024 }],
    ['05 Jan 2025', { month: 1, day: 5, year: 2025 }],
    ['02/29', { month: 2, day: 29, year: null }],
    // the day glued to the month: printed so, or the space lost by OCR
    ['02Apr', { month: 4, day: 2, year: null }],
    ['15APR24', { month: 4, day: 15, year: 2024 }],
    ['3May2025', { month: 5, day: 3, year: 2025 }],
  ])('%s', (tok, want) => {
    expect(parseDateToken(tok)).toEqual(want);
  });

  it.each(['13/13', '00/10', '1,234.56', 'Page', '12/32', '32/01', '01/05-2025', '10am', '2nd', '40Apr', '12Bogus'])(
    'rejects %s',
    (tok) => {
      expect(parseDateToken(tok)).toBeNull();
    },
  );

  it('resolves MM/DD years across a Dec->Jan statement period', () => {
    expect(resolveYear(12, 28, '2025-12-16', '2026-01-15', 2000)).toBe(2025);
    expect(resolveYear(1, 3, '2025-12-16', '2026-01-15', 2000)).toBe(2026);
    expect(resolveYear(6, 3, '2025-06-01', '2025-06-30', 2000)).toBe(2025);
    expect(resolveYear(6, 3, null, null, 2031)).toBe(2031);
  });

  it('knows which dates exist', () => {
    expect(isValidDate(2024, 2, 29)).toBe(true);
    expect(isValidDate(2025, 2, 29)).toBe(false);
    expect(isValidDate(2025, 4, 31)).toBe(false);
    expect(isValidDate(2000, 2, 29)).toBe(true);
    expect(isValidDate(1900, 2, 29)).toBe(false);
  });

  it('finds full dates in free text in order', () => {
    expect(findFullDates('Statement period January 1, 2025 through 01/31/25')).toEqual(['2025-01-01', '2025-01-31']);
    expect(findFullDates('from 12th Feb 2022 to 31/03/2022')).toEqual(['2022-02-12', '2022-03-31']);
  });
});
