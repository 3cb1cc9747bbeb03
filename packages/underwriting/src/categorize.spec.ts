import { categorizeTransaction, counterpartyKey, matchKnownLender } from './categorize';

describe('categorizeTransaction', () => {
  const cases: [string, number, string][] = [
    // credits
    ['SQUARE INC DEPOSIT 240115', 1200, 'revenue'],
    ['STRIPE TRANSFER ST-88231', 950, 'revenue'], // processor payout, not an own-account transfer
    ['PAYPAL TRANSFER', 400, 'revenue'],
    ['WIRE FROM ACME CORP', 15000, 'revenue'],
    ['ZELLE FROM JOHN SMITH', 300, 'revenue'],
    ['MOBILE DEPOSIT', 820, 'revenue'],
    ['CASH DEPOSIT', 500, 'revenue'],
    ['ONLINE TRANSFER FROM SAVINGS 5678', 2000, 'transfer'],
    ['ONDECK LOAN PROCEEDS', 50000, 'non_revenue'],
    ['SBA EIDL DISBURSEMENT', 30000, 'non_revenue'],
    ['AMAZON REFUND', 45.5, 'non_revenue'],
    ['REVERSAL OF NSF FEE', 35, 'non_revenue'],
    ['INTEREST PAID', 1.23, 'non_revenue'],
    ['MISC CREDIT', 10, 'revenue'],
    // debits
    ['POS PURCHASE HOME DEPOT', -120, 'operating_expense'],
    ['ADP PAYROLL', -5400, 'operating_expense'],
    ['FORA FINANCIAL ACH DEBIT', -350, 'debt_service'],
    ['SBA LOAN PAYMENT', -900, 'debt_service'],
    ['CAPITAL ONE CREDIT CARD PMT', -700, 'operating_expense'], // a bank, not a lender
    ['ONLINE TRANSFER TO CHK 1234', -2000, 'transfer'],
    ['OUTGOING WIRE TO SUPPLIER', -8000, 'operating_expense'], // a wire is not an own-account transfer
    ['NSF FEE', -35, 'operating_expense'],
    ['OVERDRAFT FEE', -36, 'operating_expense'],
    ['ATM WITHDRAWAL', -400, 'other'],
    ['RETURNED ITEM CHECK 554', -700, 'other'],
    ['FANDUEL SPORTSBOOK', -100, 'other'],
    ['ZERO', 0, 'other'],
  ];
  it.each(cases)('%s (%d) -> %s', (description, amount, category) => {
    expect(categorizeTransaction({ description, amount }).category).toBe(category);
  });

  it('is case-insensitive and ignores reference numbers', () => {
    expect(categorizeTransaction({ description: 'square inc deposit 000123456', amount: 10 }).category).toBe('revenue');
    expect(categorizeTransaction({ description: 'Square Inc Deposit 999', amount: 10 }).category).toBe('revenue');
  });
});

describe('counterpartyKey / matchKnownLender', () => {
  it('uses the lender name when one is present', () => {
    expect(matchKnownLender('YELLOWSTONE CAPITAL ACH DEBIT 123')).toBe('yellowstone capital');
    expect(counterpartyKey('ACH DEBIT YELLOWSTONE CAPITAL PPD ID 99')).toBe('yellowstone capital');
    expect(matchKnownLender('HOME DEPOT')).toBeNull();
  });
  it('strips digits, punctuation and ACH boiler-plate', () => {
    expect(counterpartyKey('ACH DEBIT NETFLIX.COM 8832 WEB')).toBe('netflix com');
    expect(counterpartyKey('POS PURCHASE SHELL OIL #5521')).toBe('shell oil');
    expect(counterpartyKey('1234 5678')).toBe('unknown');
  });
});
