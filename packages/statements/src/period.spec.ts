import { findPeriod } from './period';

describe('statement periods as banks print them', () => {
  it.each([
    ['July 1, 2022 through July 31, 2022', '2022-07-01', '2022-07-31'],
    ['Statement Period February 1 – April 30, 2022', '2022-02-01', '2022-04-30'],
    ['12th Feb to 11th Mar 2022', '2022-02-12', '2022-03-11'],
    ['01/05/2019 - 31/05/2019', '2019-05-01', '2019-05-31'],
    ['Statement period from 1 Feb 2026 to 28 Feb 2026', '2026-02-01', '2026-02-28'],
    ['Statement Period: January 1 · March 31, 2024', '2024-01-01', '2024-03-31'],
    ['Statement Period Jul 2018 - 30 Dec 2018', '2018-07-01', '2018-12-30'],
    ['October 01, 2019, through November 30, 2019', '2019-10-01', '2019-11-30'],
    ['For the period 2024-01-01 to 2024-01-31', '2024-01-01', '2024-01-31'],
    ['Statement period 15 Dec to 14 Jan 2024', '2023-12-15', '2024-01-14'],
    ['Statement Period Dec 15 2023 to Jan 14, 2024', '2023-12-15', '2024-01-14'],
    ['Statement from 01/03/2024 to 31/03/2024', '2024-03-01', '2024-03-31'],
    ['Period 03/01/2024 - 03/31/2024', '2024-03-01', '2024-03-31'],
  ])('%s', (text, start, end) => {
    const p = findPeriod([text]);
    expect(p && [p.start, p.end]).toEqual([start, end]);
  });

  it('reads the period on the line below its label', () => {
    expect(findPeriod(['Statement period', '1 Jul 2023 - 31 Jul 2023'])).toMatchObject({ start: '2023-07-01', end: '2023-07-31' });
  });

  it('tells day-first periods apart', () => {
    expect(findPeriod(['01/05/2019 - 31/05/2019'])?.dayFirst).toBe(true);
    expect(findPeriod(['Period 03/01/2024 - 03/31/2024'])?.dayFirst).toBe(false);
  });

  it('does not take a transaction row with posting and value dates for a period', () => {
    expect(findPeriod(['01/03/2024 - 02/03/2024 CARD PAYMENT 12.00 1,200.00'])).toBeNull();
    expect(findPeriod(['Opening balance 1,000.00'])).toBeNull();
  });
});
