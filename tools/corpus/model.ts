/** A synthetic business checking account month, independent of how it is printed. */
import { Rng } from './rng';

export interface TruthTransaction {
  date: string;
  description: string;
  amount: number;
  balance: number | null;
  kind: 'deposit' | 'check' | 'card' | 'electronic' | 'fee';
  checkNo?: number;
}

export interface StatementModel {
  bankName: string;
  bankAddress: string;
  accountHolder: string;
  holderAddress: [string, string];
  accountNumber: string;
  accountType: string;
  periodStart: string;
  periodEnd: string;
  openingBalance: number;
  closingBalance: number;
  transactions: TruthTransaction[]; // chronological, balance = running balance after the row
}

const r2 = (n: number) => Math.round(n * 100) / 100;

const BANKS = [
  'First Harbor Bank',
  'Summit Ridge Bank',
  'Pacific Crest Bank, N.A.',
  'Lakeshore National Bank',
  'Granite State Bank',
  'Redwood Valley Credit Union',
  'Prairie Trust Bank',
  'Bluewater Savings Bank',
  'Cedar Point Federal Credit Union',
  'Ironwood Bank & Trust',
];
const BIZ = [
  'Acme Plumbing LLC',
  'Sunrise Bakery Inc',
  'Northside Auto Repair LLC',
  'Bright Smile Dental PLLC',
  'Golden Gate Logistics Corp',
  'Maple Street Cafe LLC',
  'Precision Roofing Co',
  'Blue Sky Landscaping LLC',
  'Harbor View Fitness Inc',
  'Evergreen Trucking LLC',
  'Lucky Star Nail Salon LLC',
  'Metro Print Shop Inc',
  // digits in the name: the account number must still come from its label, never from the holder line
  'ACME 2066 Bakery LLC',
  'Route 66 Diner LLC',
  '1st Choice Plumbing LLC',
];
const TYPES = [
  'Business Checking',
  'Platinum Business Checking',
  'Business Complete Checking',
  'Small Business Checking',
  'Analyzed Business Checking',
  'Business Interest Checking',
  'Commercial Checking',
  'Business Essentials Checking',
];
const STREETS = ['Main St', 'Oak Ave', 'Industrial Blvd', 'Market St', 'Harbor Dr', 'Elm St', 'Commerce Way'];
const CITIES = [
  'Columbus, OH 43215',
  'Tampa, FL 33602',
  'Dallas, TX 75201',
  'Fresno, CA 93721',
  'Newark, NJ 07102',
  'Phoenix, AZ 85004',
  'Denver, CO 80202',
];

const DEPOSITS = [
  () => 'Remote Online Deposit',
  (r: Rng) => `ACH Credit Stripe Transfer ST-${r.int(100000, 999999)}`,
  (r: Rng) => `Merchant Settlement Square Inc ${r.int(1000, 9999)} Batch ${r.int(100, 999)}`,
  (r: Rng) => `Deposit Branch ${r.int(100, 999)}`,
  (r: Rng) =>
    `Wire Transfer In From ${r.pick(['Global Supply Co', 'Hartford Insurance', 'City of Tampa', 'Amazon Payments Inc'])} Ref ${r.int(10000000, 99999999)}`,
  (r: Rng) => `Shopify Payout ${r.int(1000000, 9999999)}`,
  () => 'Mobile Deposit',
  (r: Rng) => `Online Transfer From Savings XXXXXX${r.int(1000, 9999)}`,
  (r: Rng) => `ACH Credit DoorDash Inc Merchant Payout ID ${r.int(100000, 999999)}`,
];
const CARDS = [
  (r: Rng) => `Card Purchase Home Depot #${r.int(1000, 9999)} Atlanta GA`,
  (r: Rng) => `POS Debit Shell Oil ${r.int(10000, 99999)} Houston TX`,
  (r: Rng) => `Card Purchase Amazon Mktplace Amzn.com/bill WA Card ${r.int(1000, 9999)}`,
  (r: Rng) => `ATM Withdrawal ${r.pick(['Main St', 'Airport Rd', 'Broadway'])} Branch ${r.int(10, 99)}`,
  (r: Rng) => `Card Purchase Staples ${r.int(100, 999)} Office Supplies`,
  (r: Rng) => `Recurring Card Purchase Adobe Systems ${r.int(100000, 999999)} CA`,
];
const ELECTRONIC = [
  (r: Rng) =>
    `ACH Debit ${r.pick(['Yellowstone Capital', 'Rapid Advance LLC', 'Forward Funding', 'Pearl Capital'])} Daily Payment ${r.int(100000, 999999)}`,
  (r: Rng) => `Payroll ADP Tax Debit ${r.int(1000000, 9999999)}`,
  (r: Rng) =>
    `Online Payment To ${r.pick(['Verizon Wireless', 'Comcast Business', 'Duke Energy', 'State Farm Insurance'])} Confirmation ${r.int(100000, 999999)}`,
  (r: Rng) => `Zelle Payment To ${r.pick(['John Smith', 'Maria Garcia', 'Kevin Lee', 'Ana Torres'])} ${r.int(10000000, 99999999)}`,
  (r: Rng) => `IRS USATAXPYMT ${r.int(100000000, 999999999)}`,
  (r: Rng) =>
    `Wire Transfer Out To ${r.pick(['Sysco Foods', 'Uline Shipping Supplies', 'Landlord Properties LLC'])} Fed Ref ${r.int(100000, 999999)}`,
  (r: Rng) => `Online Transfer To Savings XXXXXX${r.int(1000, 9999)}`,
];
const FEES = ['Monthly Service Fee', 'Overdraft Item Fee', 'Wire Transfer Fee', 'Cash Deposit Processing Fee', 'Stop Payment Fee'].map(
  (s) => (_r: Rng) => s,
);

export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export interface ModelOptions {
  transactions: number;
  crossYear?: boolean;
  checks?: boolean;
}

export function makeModel(r: Rng, o: ModelOptions): StatementModel {
  const year = r.int(2023, 2026);
  let start: Date;
  let end: Date;
  if (o.crossYear) {
    start = new Date(Date.UTC(year - 1, 11, r.int(10, 20)));
    end = new Date(start.getTime() + 30 * 86400000);
  } else {
    const m = r.int(0, 11);
    // No statement ends after September 2026: one dated after the day it is read is flagged for
    // review by the parser (a statement cannot cover the future), and the corpus is read today.
    const y = year === 2026 && m >= 9 ? 2025 : year;
    start = new Date(Date.UTC(y, m, 1));
    end = new Date(Date.UTC(y, m + 1, 0));
  }
  const days = Math.round((end.getTime() - start.getTime()) / 86400000) + 1;
  const opening = r.money(4000, 90000);
  const n = o.transactions;
  const dates: string[] = [];
  for (let i = 0; i < n; i++) dates.push(isoDate(new Date(start.getTime() + r.int(0, days - 1) * 86400000)));
  dates.sort();
  let checkNo = r.int(1001, 5000);
  let bal = opening;
  const txs: TruthTransaction[] = [];
  for (const date of dates) {
    const x = r.next();
    let t: TruthTransaction;
    if (x < 0.38) t = { date, description: r.pick(DEPOSITS)(r), amount: r.money(150, 9000), balance: 0, kind: 'deposit' };
    else if (x < 0.5 && o.checks !== false) {
      checkNo += r.int(1, 2);
      t = { date, description: `Check ${checkNo}`, amount: -r.money(40, 3500), balance: 0, kind: 'check', checkNo };
    } else if (x < 0.72) t = { date, description: r.pick(CARDS)(r), amount: -r.money(5, 900), balance: 0, kind: 'card' };
    else if (x < 0.96) t = { date, description: r.pick(ELECTRONIC)(r), amount: -r.money(50, 6000), balance: 0, kind: 'electronic' };
    else t = { date, description: r.pick(FEES)(r), amount: -r.money(5, 45), balance: 0, kind: 'fee' };
    // keep the account mostly positive
    if (bal + t.amount < 500 && t.amount < 0) t.amount = -r2(Math.min(-t.amount, Math.max(5, bal * 0.1)));
    bal = r2(bal + t.amount);
    t.balance = bal;
    txs.push(t);
  }
  const acct = String(r.int(100000, 999999)) + String(r.int(1000, 9999)) + String(r.int(1000, 9999));
  return {
    bankName: r.pick(BANKS),
    bankAddress: `P.O. Box ${r.int(1000, 99999)}, ${r.pick(CITIES)}`,
    accountHolder: r.pick(BIZ),
    holderAddress: [`${r.int(10, 9999)} ${r.pick(STREETS)}`, r.pick(CITIES)],
    accountNumber: acct,
    accountType: r.pick(TYPES),
    periodStart: isoDate(start),
    periodEnd: isoDate(end),
    openingBalance: opening,
    closingBalance: bal,
    transactions: txs,
  };
}

// -------- formatting helpers
export const fmtMoney = (n: number): string => Math.abs(n).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const d = {
  mmdd: (s: string) => `${s.slice(5, 7)}/${s.slice(8, 10)}`,
  mmddDash: (s: string) => `${s.slice(5, 7)}-${s.slice(8, 10)}`,
  mdyyyy: (s: string) => `${s.slice(5, 7)}/${s.slice(8, 10)}/${s.slice(0, 4)}`,
  mdyy: (s: string) => `${s.slice(5, 7)}/${s.slice(8, 10)}/${s.slice(2, 4)}`,
  monDD: (s: string) => `${MON[+s.slice(5, 7) - 1]} ${s.slice(8, 10)}`,
  monD_yyyy: (s: string) => `${MON[+s.slice(5, 7) - 1]} ${+s.slice(8, 10)}, ${s.slice(0, 4)}`,
  long: (s: string) => `${MONTH[+s.slice(5, 7) - 1]} ${+s.slice(8, 10)}, ${s.slice(0, 4)}`,
  iso: (s: string) => s,
};
