import { classifyText } from './classify';

const BANK =
  'First Bank\nStatement Period 01/01/2025 - 01/31/2025\nAccount Number XXXX1234\nBeginning Balance $1,000.00\nDeposits and Additions\nEnding Balance $900.00\nMember FDIC';
const TAX =
  'Form 1120-S U.S. Income Tax Return for an S Corporation\nDepartment of the Treasury Internal Revenue Service\n1a Gross receipts or sales 100,000.00\nOrdinary business income';
const PNL =
  'Acme LLC\nProfit and Loss\nJanuary - December 2025\nAccrual Basis\nTotal Income 10,000.00\nGross Profit\nTotal Expenses\nNet Income 1,000.00';

describe('classifyText', () => {
  it.each([
    [BANK, 'bank_statement'],
    [TAX, 'tax_return'],
    [PNL, 'profit_and_loss'],
    ['Dear customer, thank you for your business.', 'other'],
  ])('classifies %#', (text, type) => {
    const c = classifyText(text);
    expect(c.documentType).toBe(type);
    expect(c.confidence).toBeGreaterThan(0.3);
  });

  it('lets a matching hint raise confidence', () => {
    expect(classifyText(BANK, 'bank_statement').confidence).toBeGreaterThanOrEqual(classifyText(BANK).confidence);
  });

  it('uses a contradicting hint but lowers confidence', () => {
    const c = classifyText(BANK, 'tax_return');
    expect(c.documentType).toBe('tax_return');
    expect(c.confidence).toBeLessThan(classifyText(BANK).confidence);
    expect(c.confidence).toBeLessThan(0.8);
  });
});
