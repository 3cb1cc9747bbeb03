import { detectCurrency } from './currency';

describe('statement currency', () => {
  it.each([
    ['Closing balance £2,424.50', 'GBP'],
    ['Amounts in EUR  Balance 1.234,00', 'EUR'],
    ['Opening balance NZ$1,250.00', 'NZD'],
    ['Kauri Bank New Zealand  Opening balance $2,410.55', 'NZD'],
    ['Account number 12-3456-0123456-00 Opening balance $875.20', 'NZD'],
    ['Commonwealth Bank of Australia BSB 062-000 Balance $1,384.89 CR', 'AUD'],
    // a bare "$" does not say which dollar: left to the currency declared at upload (FDIC only suggests USD)
    ['Member FDIC  Beginning Balance $1,000.00', null],
    ['BBVA USA is a bank headquartered in Birmingham  Balance $1,000.00', 'USD'],
    ['US$1,000.00 wire in', 'USD'],
    ['Sort code 12-34-56 Balance 100.00', 'GBP'],
    ['NEFT Transfer From PQR 4678.02', 'INR'],
    ['Balance 100.00 USD and a £ sign once', 'USD'],
    ['Balance 100.00', null],
  ])('%s', (text, want) => {
    expect(detectCurrency(text)).toBe(want);
  });
});
