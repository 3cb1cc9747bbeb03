import { makePdf, rows, Txt } from './__fixtures__/make-pdf';
import { pastePatch, rasterPdf, renderGray, scanify } from './__fixtures__/make-scan';
import { parseStatementFile, shutdownOcr } from './index';
import { wordPixelStats } from './tamper-scan';

const X = [40, 110, -380, -460, -560];
const ROWS = [
  ['03/01/2025', 'Card purchase Grocer', '50.00', '', '950.00'],
  ['05/01/2025', 'Payroll deposit', '', '1,200.00', '2,150.00'],
  ['08/01/2025', 'Rent', '900.00', '', '1,250.00'],
  ['11/01/2025', 'Card purchase Fuel', '45.10', '', '1,204.90'],
  ['14/01/2025', 'Transfer in', '', '300.00', '1,504.90'],
  ['18/01/2025', 'Utility bill', '120.35', '', '1,384.55'],
  ['22/01/2025', 'Card purchase Cafe', '8.40', '', '1,376.15'],
  ['27/01/2025', 'Customer payment', '', '640.00', '2,016.15'],
];
const Y0 = 125;
const LH = 14;

function page(rowsIn: string[][]): Txt[] {
  return [
    { x: 40, y: 40, text: 'Plover Savings Bank', size: 12, bold: true },
    { x: 40, y: 58, text: 'Statement period 01/01/2025 to 31/01/2025' },
    { x: 40, y: 70, text: 'Opening balance 1,000.00' },
    { x: 40, y: 82, text: 'Closing balance 2,016.15' },
    ...rows([['Date', 'Description', 'Withdrawals', 'Deposits', 'Balance']], X, 110),
    ...rows(rowsIn, X, Y0, LH, 10),
  ];
}

// a short page: less to scan, render and recognise
const SIZE: [number, number] = [612, 260];
const SCALE = 200 / 72;
const read = (bytes: Uint8Array) => parseStatementFile(bytes, { receivedAt: new Date(Date.UTC(2025, 5, 1)) });

afterAll(() => shutdownOcr());

describe('scan tamper findings (pasted patch)', () => {
  it('measures a scanned word as noisy and soft, a typed-on patch as clean and crisp', async () => {
    const clean = await renderGray(await makePdf([page(ROWS)], { size: SIZE }));
    const scan = scanify(clean, { seed: 7 });
    // the deposit 1,200.00 of row 2 (right edge 460, baseline Y0 + LH, 10 pt)
    const box: [number, number, number, number] = [421, Y0 + LH - 7.5, 460, Y0 + LH + 0.5];
    const scanned = wordPixelStats(scan, SCALE, box)!;
    const patched = wordPixelStats(pastePatch(scan, clean, [414, Y0 + LH - 10, 464, Y0 + LH + 4], SCALE), SCALE, box)!;
    expect(scanned.noise!).toBeGreaterThan(3);
    expect(patched.noise!).toBeLessThan(1);
    expect(scanned.sharp!).toBeLessThan(0.65);
    expect(patched.sharp!).toBeGreaterThan(0.8);
    expect(Math.abs(scanned.tone - patched.tone)).toBeLessThanOrEqual(3);
  });

  it('finds no patch on a scanned page, and names the row of an amount pasted in as a crisp patch', async () => {
    const scan = scanify(await renderGray(await makePdf([page(ROWS)], { size: SIZE })), { seed: 32 });
    const plain = await read(await rasterPdf(scan, SIZE));
    expect(plain.extractionMethod).toBe('ocr');
    expect(plain.transactions.length).toBe(8);
    expect((plain.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch')).toEqual([]);

    // the deposit of row 2 made 4,200.00: the edited page rendered crisply, pasted over the cell with a margin
    const edited = ROWS.map((r) => [...r]);
    edited[1][3] = '4,200.00';
    const clean = await renderGray(await makePdf([page(edited)], { size: SIZE }));
    const base = Y0 + LH;
    const patched = pastePatch(scan, clean, [414, base - 10, 464, base + 4], SCALE);
    const res = await read(await rasterPdf(patched, SIZE));
    const row = res.transactions.findIndex((t) => Math.abs(t.amount - 4200) < 0.005);
    expect(row).toBeGreaterThanOrEqual(0);
    const patch = (res.tamperFindings ?? []).filter((f) => f.kind === 'pasted_patch');
    expect(patch).toHaveLength(1);
    expect(patch[0]).toMatchObject({ category: 'content', severity: 'high', page: 1, row });
    expect(patch[0].message).toMatch(/4,200\.00 is cleaner and sharper than the other \d+ amounts of its (column|page): paper noise/);
    expect(res.pdfRiskLevel).toBe('high');
  }, 60_000);
});
