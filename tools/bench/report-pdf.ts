import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { sampleReportInput, type SampleProfile } from './report-sample';

/**
 * PDF underwriting report: render time for a deal of 12 statements (target < 1 s per report,
 * warm process), and with `--write DIR` the two sample reports kept under docs/.
 * Exits non-zero below target.
 */
const TARGET_MS = 1000;
const RUNS = 5;

type Render = (input: unknown) => Promise<Uint8Array>;

async function main(): Promise<void> {
  const { renderDealReportPdf } = require(resolve(__dirname, '../../../apps/api/dist/modules/exports/pdf/report-pdf.js')) as {
    renderDealReportPdf: Render;
  };
  const writeTo = process.argv.includes('--write') ? process.argv[process.argv.indexOf('--write') + 1] : null;
  let worst = 0;
  for (const profile of ['strong', 'weak'] as SampleProfile[]) {
    const input = sampleReportInput(profile, 12);
    const first = performance.now();
    const bytes = await renderDealReportPdf(input);
    const coldMs = performance.now() - first;
    const times: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      await renderDealReportPdf(input);
      const c = process.cpuUsage(c0);
      times.push(performance.now() - t0);
      cpu.push((c.user + c.system) / 1000);
    }
    cpu.sort((a, b) => a - b);
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    worst = Math.max(worst, times[times.length - 1]);
    process.stdout.write(
      `report-pdf ${profile}: 12 statements, ${input.deal.daily_balances.length} days, ${input.flaggedTotal} flagged; ` +
        `${(bytes.length / 1024).toFixed(0)} KiB; first render ${coldMs.toFixed(0)} ms, median ${median.toFixed(0)} ms, max ${times[times.length - 1].toFixed(0)} ms wall; ` +
        `CPU median ${cpu[Math.floor(cpu.length / 2)].toFixed(0)} ms, max ${cpu[cpu.length - 1].toFixed(0)} ms; load ${loadavg()[0].toFixed(1)}\n`,
    );
    if (writeTo) {
      mkdirSync(writeTo, { recursive: true });
      writeFileSync(join(writeTo, `underwriting-report-${profile}.pdf`), bytes);
      // a preview of the first two pages, for readers who browse the repository
      const mupdf = await import('mupdf');
      const doc = mupdf.Document.openDocument(bytes, 'application/pdf');
      for (const i of [0, 1]) {
        const png = doc.loadPage(i).toPixmap(mupdf.Matrix.scale(1.25, 1.25), mupdf.ColorSpace.DeviceRGB, false, true).asPNG();
        writeFileSync(join(writeTo, `underwriting-report-${profile}-page${i + 1}.png`), png);
      }
    }
  }
  const ok = worst < TARGET_MS;
  process.stdout.write(`report-pdf: worst warm render ${worst.toFixed(0)} ms wall, target < ${TARGET_MS} ms: ${ok ? 'PASS' : 'FAIL'}\n`);
  if (!ok) process.exit(1);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
