import { boolCell, csvLine, moneyCell, textCell } from './csv';

describe('CSV cells', () => {
  it.each([
    ['=HYPERLINK("http://x","click")', `"'=HYPERLINK(""http://x"",""click"")"`],
    ['+1 555 0100', "'+1 555 0100"],
    ['-95 REFUND', "'-95 REFUND"],
    ['@SUM(A1:A9)', "'@SUM(A1:A9)"],
    ['\tTAB', "'\tTAB"],
    ['  =1+2', "'  =1+2"],
    ['SQUARE INC DEPOSIT', 'SQUARE INC DEPOSIT'],
    ['ACME, INC', '"ACME, INC"'],
    ['line\nbreak', '"line\nbreak"'],
  ])('neutralises and quotes text %j', (input, expected) => {
    expect(textCell(input)).toBe(expected);
  });

  it('leaves numbers as numbers, negative ones included', () => {
    expect(moneyCell(-95)).toBe('-95.00');
    expect(moneyCell('-1234.50')).toBe('-1234.50');
    expect(moneyCell(0.1 + 0.2)).toBe('0.30');
    expect(moneyCell(null)).toBe('');
  });

  it('writes flags as true/false and a missing value as an empty cell', () => {
    expect(csvLine([boolCell(true), boolCell(false), textCell(null), moneyCell(undefined)])).toBe('true,false,,\r\n');
  });
});
