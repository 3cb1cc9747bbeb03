import { startFakeGroq, FakeGroq } from '../../../tools/fakes/groq';
import { makePdf, rows, Txt } from './__fixtures__/make-pdf';
import { parseStatementFile, validateLlmJson, LlmOutputError } from './index';

const cols = [40, 100, -470, -560];
const page = (n: number, body: string[][]): Txt[] => [
  { x: 40, y: 40, text: 'Test Bank', size: 14 },
  { x: 40, y: 55, text: `Statement Period: 05/01/2025 - 05/31/2025   Page ${n}` },
  { x: 40, y: 68, text: 'Beginning Balance 100.00' },
  { x: 40, y: 81, text: 'Ending Balance 130.00' },
  ...rows([['Date', 'Description', 'Amount', 'Balance']], cols, 110),
  ...rows(body, cols, 125),
];

const good = {
  bank_name: 'Test Bank',
  account_holder: null,
  account_number_last4: 'xx1234',
  account_type: 'Business Checking',
  statement_period_start: '2025-05-01',
  statement_period_end: '2025-05-31',
  opening_balance: 100,
  closing_balance: 130,
  transactions: [
    { date: '2025-05-02', description: 'Deposit A', amount: 50, balance: 150 },
    { date: '2025-05-03', description: 'Fee', amount: -20, balance: 130 },
  ],
};

describe('LLM parser against a fake Groq server', () => {
  let fake: FakeGroq | null = null;
  let pdf: Uint8Array;
  beforeAll(async () => {
    pdf = await makePdf([
      page(1, [
        ['05/02', 'Deposit A', '50.00', '150.00'],
        ['05/03', 'Fee', '-20.00', '130.00'],
      ]),
    ]);
  });
  afterEach(async () => {
    await fake?.close();
    fake = null;
  });
  const llm = (f: FakeGroq, extra: Record<string, unknown> = {}) => ({
    apiKey: 'test-key',
    baseURL: f.url,
    model: 'fake-model-70b',
    ...extra,
  });

  it('accepts an LLM result that reconciles and records the model', async () => {
    fake = await startFakeGroq({ respond: () => JSON.stringify(good) });
    const steps: string[] = [];
    const r = await parseStatementFile(pdf, { llm: llm(fake), onStep: (s) => steps.push(s) });
    expect(r.parser).toEqual({ method: 'llm', model: 'fake-model-70b', fallbackReason: null });
    expect(r.accountNumberLast4).toBe('1234');
    expect(r.transactions.map((t) => t.description)).toEqual(['Deposit A', 'Fee']);
    expect(steps).toContain('parsing_with_llm');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].model).toBe('fake-model-70b');
    expect(fake.requests[0].body.response_format).toEqual({ type: 'json_object' });
    expect(fake.requests[0].messages[1].content).toMatch(/05\/02 +Deposit A +50\.00 +150\.00/);
    expect(fake.requests[0].headers.authorization).toBe('Bearer test-key');
  });

  it('keeps the rule result when the LLM result does not reconcile', async () => {
    fake = await startFakeGroq({ respond: () => JSON.stringify({ ...good, transactions: [good.transactions[0]] }) });
    const r = await parseStatementFile(pdf, { llm: llm(fake) });
    expect(r.parser.method).toBe('rule');
    expect(r.parser.fallbackReason).toMatch(/does not reconcile/);
    expect(r.transactions).toHaveLength(2);
    expect(r.reconciliation.reconciled).toBe(true);
  });

  it('falls back on output that is not JSON or breaks the schema', async () => {
    fake = await startFakeGroq({ respond: () => 'Sure! Here are the transactions: ...' });
    const r = await parseStatementFile(pdf, { llm: llm(fake) });
    expect(r.parser).toMatchObject({ method: 'rule', fallbackReason: expect.stringMatching(/not valid JSON/) });
    expect(() => validateLlmJson('{"transactions":[{"date":"05/02/2025","description":"x","amount":1}]}')).toThrow(LlmOutputError);
    expect(() => validateLlmJson('{"transactions":[{"date":"2025-05-02","description":"x","amount":"1.00"}]}')).toThrow(/amount/);
  });

  it('falls back on HTTP errors and on timeouts', async () => {
    fake = await startFakeGroq({ respond: () => ({ status: 500, body: { error: { message: 'boom' } } }) });
    let r = await parseStatementFile(pdf, { llm: llm(fake) });
    expect(r.parser.fallbackReason).toMatch(/llm failed/);
    await fake.close();
    fake = await startFakeGroq({ delayMs: 3000, respond: () => JSON.stringify(good) });
    const t = Date.now();
    r = await parseStatementFile(pdf, { llm: llm(fake, { timeoutMs: 300 }) });
    expect(r.parser.method).toBe('rule');
    expect(r.parser.fallbackReason).toMatch(/llm failed/);
    expect(Date.now() - t).toBeLessThan(2500);
  });

  it('sends pages in chunks and merges the chunks', async () => {
    const three = await makePdf([
      page(1, [['05/02', 'Deposit A', '50.00', '150.00']]),
      page(2, [['05/03', 'Fee', '-20.00', '130.00']]),
      page(3, []),
    ]);
    fake = await startFakeGroq({
      respond: (_req, i) =>
        JSON.stringify(
          i === 0
            ? { ...good, transactions: [good.transactions[0]] }
            : { transactions: i === 1 ? [good.transactions[1]] : [], closing_balance: 130 },
        ),
    });
    const r = await parseStatementFile(three, { llm: llm(fake, { pagesPerChunk: 1 }) });
    expect(fake.requests).toHaveLength(3);
    expect(r.parser.method).toBe('llm');
    expect(r.transactions).toHaveLength(2);
  });
});
