import { tx } from './__fixtures__/helpers';
import { screenTransactions } from './screening';

const byDesc = (rows: ReturnType<typeof screenTransactions>, d: string) => rows.filter((r) => r.description === d);

describe('screenTransactions: fees', () => {
  const rows = screenTransactions([
    tx('2024-03-01', 'NSF FEE', -35),
    tx('2024-03-01', 'RETURNED ITEM FEE', -34),
    tx('2024-03-02', 'OVERDRAFT FEE', -36),
    tx('2024-03-03', 'REVERSAL OF NSF FEE', 35),
  ]);
  it('flags NSF and overdraft fees on debits only, with bucket and reason', () => {
    expect(rows.map((r) => [r.is_nsf_fee, r.is_overdraft_fee, r.screening_bucket])).toEqual([
      [true, false, 'nsf_fee'],
      [true, false, 'nsf_fee'], // a returned-item fee is an NSF fee, not a returned item
      [false, true, 'overdraft_fee'],
      [false, false, null],
    ]);
    expect(rows[0].flag_reason).toBe('NSF (insufficient funds) fee of $35.00');
    expect(rows[2].flag_reason).toBe('Overdraft fee of $36.00');
    expect(rows[3].flag_reason).toBeNull();
    expect(rows.map((r) => r.is_suspicious)).toEqual([false, false, false, false]);
  });
});

describe('screenTransactions: large and round-number deposits', () => {
  // deposits 900, 1000, 1100, 1200, 8000, 10000 -> median (1100 + 1200) / 2 = 1150; 3 x 1150 = 3450
  const rows = screenTransactions([
    tx('2024-03-01', 'SQUARE DEPOSIT A', 900),
    tx('2024-03-02', 'MOBILE DEPOSIT', 1000),
    tx('2024-03-03', 'SQUARE DEPOSIT B', 1100),
    tx('2024-03-04', 'SQUARE DEPOSIT C', 1200),
    tx('2024-03-05', 'SQUARE DEPOSIT D', 8000),
    tx('2024-03-06', 'WIRE FROM UNKNOWN LLC', 10000),
    tx('2024-03-07', 'ONLINE TRANSFER FROM SAVINGS', 50000), // transfers are not deposits for the median
  ]);
  it('a deposit >= 3x the median and >= $1,000 is large; unusual only when not a known revenue source', () => {
    const square = byDesc(rows, 'SQUARE DEPOSIT D')[0];
    expect([square.is_large_deposit, square.is_large_strange, square.screening_bucket]).toEqual([true, false, null]);
    const wire = byDesc(rows, 'WIRE FROM UNKNOWN LLC')[0];
    expect([wire.is_large_deposit, wire.is_large_strange, wire.is_suspicious]).toEqual([true, true, true]);
    expect(wire.screening_bucket).toBe('large_unusual_deposit');
    expect(wire.flag_reason).toBe(
      'Deposit of $10,000.00 is 8.7x the median deposit ($1,150.00) and not from a known revenue source; ' +
        'Round-number deposit of $10,000.00 from an unidentified source',
    );
    const transfer = byDesc(rows, 'ONLINE TRANSFER FROM SAVINGS')[0];
    expect([transfer.category, transfer.is_large_deposit, transfer.screening_bucket]).toEqual(['transfer', false, null]);
  });
  it('round-number deposits of >= $1,000 from an unidentified source are flagged', () => {
    const mobile = byDesc(rows, 'MOBILE DEPOSIT')[0];
    expect([mobile.screening_bucket, mobile.is_suspicious, mobile.is_large_deposit]).toEqual(['round_number_deposit', true, false]);
    expect(byDesc(rows, 'SQUARE DEPOSIT D')[0].screening_bucket).toBeNull(); // 8000 from a processor
  });
  it('needs at least 3 deposits for a median', () => {
    const two = screenTransactions([tx('2024-03-01', 'DEPOSIT', 100), tx('2024-03-02', 'WIRE FROM X', 9999)]);
    expect(two.map((r) => r.is_large_deposit)).toEqual([false, false]);
  });
  it('thresholds are parameters', () => {
    const strict = screenTransactions(
      [tx('2024-03-01', 'DEPOSIT', 100), tx('2024-03-02', 'DEPOSIT', 100), tx('2024-03-03', 'WIRE FROM X', 250)],
      { largeDepositMultiple: 2, largeDepositMinAmount: 200 },
    );
    expect(strict.map((r) => r.is_large_strange)).toEqual([false, false, true]);
  });
});

describe('screenTransactions: risky debits', () => {
  const rows = screenTransactions([
    tx('2024-03-01', 'ATM WITHDRAWAL', -1000),
    tx('2024-03-01', 'ATM WITHDRAWAL SMALL', -200),
    tx('2024-03-02', 'DRAFTKINGS', -100),
    tx('2024-03-03', 'RETURNED ITEM CHECK 554', -700),
    tx('2024-03-04', 'CHECK 1234', -500),
    tx('2024-03-04', 'CHECK 1234', -500),
    tx('2024-03-04', 'COFFEE', -5),
    tx('2024-03-04', 'COFFEE', -5),
  ]);
  it('flags cash withdrawals of at least $1,000', () => {
    expect(rows[0].screening_bucket).toBe('cash_withdrawal');
    expect(rows[0].flag_reason).toBe('Cash withdrawal of $1,000.00');
    expect(rows[1].screening_bucket).toBeNull();
  });
  it('flags gambling and returned items as suspicious', () => {
    expect([rows[2].screening_bucket, rows[2].is_suspicious]).toEqual(['gambling', true]);
    expect([rows[3].screening_bucket, rows[3].is_suspicious]).toEqual(['returned_item', true]);
  });
  it('flags the second copy of a same-day, same-amount, same-description transaction of >= $100', () => {
    expect([rows[4].screening_bucket, rows[5].screening_bucket]).toEqual([null, 'duplicate_transaction']);
    expect([rows[6].screening_bucket, rows[7].screening_bucket]).toEqual([null, null]);
  });
  it('only looks for duplicates inside a group (statement)', () => {
    const r = screenTransactions([tx('2024-03-04', 'CHECK 1234', -500), tx('2024-03-04', 'CHECK 1234', -500)], undefined, {
      groups: [0, 1],
    });
    expect(r.map((x) => x.screening_bucket)).toEqual([null, null]);
  });
});

describe('screenTransactions: repeat charges and lender payments', () => {
  it('3+ debits of the same amount to the same counterparty are repeat charges; 2 are not', () => {
    const rows = screenTransactions([
      tx('2024-01-05', 'NETFLIX.COM 1111', -49.99),
      tx('2024-02-05', 'NETFLIX.COM 2222', -49.99),
      tx('2024-03-05', 'NETFLIX.COM 3333', -49.99),
      tx('2024-01-09', 'SPOTIFY', -9.99),
      tx('2024-02-09', 'SPOTIFY', -9.99),
    ]);
    expect(rows.map((r) => r.is_repeat_charge)).toEqual([true, true, true, false, false]);
    expect(rows[0].screening_bucket).toBe('repeat_charge');
    expect(rows[0].flag_reason).toBe("Repeated charge: 3 debits of $49.99 to 'netflix com'");
    expect(rows[0].is_suspicious).toBe(false);
  });

  it('a known lender name is a lender payment even once', () => {
    const [r] = screenTransactions([tx('2024-03-01', 'KALAMATA CAPITAL ACH', -800)]);
    expect([r.is_lender_payment, r.category, r.screening_bucket]).toEqual([true, 'debt_service', 'mca_payment']);
    expect(r.flag_reason).toBe("Payment to lender 'kalamata capital group' (known lender)");
  });

  it('loan wording needs two payments to become a position', () => {
    const one = screenTransactions([tx('2024-03-01', 'ACME BANK LOAN PAYMENT', -900)]);
    expect([one[0].category, one[0].is_lender_payment]).toEqual(['debt_service', false]);
    const two = screenTransactions([tx('2024-03-01', 'ACME BANK LOAN PAYMENT', -900), tx('2024-04-01', 'ACME BANK LOAN PAYMENT', -900)]);
    expect(two.map((r) => r.is_lender_payment)).toEqual([true, true]);
  });

  it('unnamed daily or weekly debits of a steady amount become lender payments (4+ payments)', () => {
    // Mon 2024-03-04 .. Fri 2024-03-08: daily
    const daily = ['04', '05', '06', '07', '08'].map((d) => tx(`2024-03-${d}`, 'XYZ RECEIVABLES PURCHASE', -250));
    const rows = screenTransactions(daily);
    expect(rows.every((r) => r.is_lender_payment && r.category === 'debt_service' && r.screening_bucket === 'mca_payment')).toBe(true);
    expect(rows[0].is_repeat_charge).toBe(true); // also a repeat charge, but the mca bucket wins
    expect(rows[0].flag_reason).toBe(
      "Payment to lender 'xyz receivables' (daily recurring debits of a steady amount); Repeated charge: 5 debits of $250.00 to 'xyz receivables'",
    );
    // only 3 payments: not enough
    expect(screenTransactions(daily.slice(0, 3)).some((r) => r.is_lender_payment)).toBe(false);
    // amounts differing by more than 5% of the median are not steady
    const unsteady = daily.map((t, i) => ({ ...t, amount: i === 0 ? -300 : -250 }));
    expect(screenTransactions(unsteady).some((r) => r.is_lender_payment)).toBe(false);
    // monthly cadence is not an MCA pattern
    const monthly = ['01', '02', '03', '04'].map((m) => tx(`2024-${m}-15`, 'XYZ RECEIVABLES', -250));
    expect(screenTransactions(monthly).some((r) => r.is_lender_payment)).toBe(false);
  });

  it('weekly recurring operating expenses (payroll) are not lender positions', () => {
    const payroll = ['01', '08', '15', '22'].map((d) => tx(`2024-03-${d}`, 'ADP PAYROLL', -5000));
    const rows = screenTransactions(payroll);
    expect(rows.map((r) => [r.is_lender_payment, r.category, r.screening_bucket])).toEqual(
      payroll.map(() => [false, 'operating_expense', 'repeat_charge']),
    );
    const weeklyFunder = ['01', '08', '15', '22'].map((d) => tx(`2024-03-${d}`, 'GLOBAL RCVBL SVCS', -1000));
    expect(screenTransactions(weeklyFunder).every((r) => r.is_lender_payment)).toBe(true);
  });
});

describe('screenTransactions: bucket priority and purity', () => {
  it('keeps the highest-priority bucket and lists every reason in priority order', () => {
    const rows = screenTransactions([tx('2024-03-01', 'CASINO ATM WITHDRAWAL', -2000), tx('2024-03-01', 'CASINO ATM WITHDRAWAL', -2000)]);
    expect(rows[1].screening_bucket).toBe('duplicate_transaction');
    expect(rows[1].flag_reason).toBe(
      'Possible duplicate: same day, amount and description as an earlier transaction; Gambling-related transaction; Cash withdrawal of $2,000.00',
    );
    expect(rows[0].screening_bucket).toBe('gambling');
  });
  it('does not mutate its input and is deterministic', () => {
    const input = [tx('2024-03-01', 'NSF FEE', -35), tx('2024-03-02', 'SQUARE', 100)];
    const copy = JSON.parse(JSON.stringify(input));
    const a = screenTransactions(input);
    const b = screenTransactions(input);
    expect(input).toEqual(copy);
    expect(a).toEqual(b);
    expect(a.map((r) => r.transaction_type)).toEqual(['debit', 'credit']);
  });
});
