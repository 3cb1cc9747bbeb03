import { execSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { makePdf, rows } from './__fixtures__/make-pdf';
import { parseStatementFile, parseStatementFileIsolated, StatementError } from './index';

const root = path.join(__dirname, '..');
const workerScript = path.join(root, 'dist', 'worker.js');

describe('parseStatementFileIsolated (worker thread, hard timeout)', () => {
  beforeAll(() => {
    if (!fs.existsSync(workerScript)) execSync('npx tsc -b .', { cwd: root, stdio: 'ignore' });
  });

  const pdf = () =>
    makePdf([
      [
        { x: 40, y: 40, text: 'Isolation Test Bank', size: 14 },
        { x: 40, y: 55, text: 'Statement Period: 03/01/2025 - 03/31/2025' },
        { x: 40, y: 68, text: 'Beginning Balance 10.00' },
        { x: 40, y: 81, text: 'Ending Balance 15.00' },
        ...rows(
          [
            ['Date', 'Description', 'Amount', 'Balance'],
            ['03/02', 'Deposit', '5.00', '15.00'],
          ],
          [40, 100, -470, -560],
          110,
        ),
      ],
    ]);

  it('returns the same result as in-process parsing and forwards steps', async () => {
    const bytes = await pdf();
    const steps: string[] = [];
    const r = await parseStatementFileIsolated(bytes, { workerScript, onStep: (s) => steps.push(s) });
    const direct = await parseStatementFile(bytes);
    expect(r.transactions).toEqual(direct.transactions);
    expect(r.reconciliation.reconciled).toBe(true);
    expect(steps).toEqual(expect.arrayContaining(['extracting_text', 'classifying']));
  });

  it('passes typed errors through', async () => {
    await expect(parseStatementFileIsolated(new Uint8Array(0), { workerScript })).rejects.toMatchObject({ code: 'blank' });
  });

  it('kills the worker at the time limit', async () => {
    const err = await parseStatementFileIsolated(await pdf(), { workerScript, timeoutMs: 1 }).catch((e) => e);
    expect(err).toBeInstanceOf(StatementError);
    expect(err.code).toBe('too_large');
  });
});
