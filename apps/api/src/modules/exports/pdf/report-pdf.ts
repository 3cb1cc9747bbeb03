import fontkit from '@pdf-lib/fontkit';
import { PDFDocument, PDFFont, rgb } from 'pdf-lib';
import type { DealDetailDto } from '../../pipeline/dto/deal.dto';
import type { RecommendationDto } from '../../pipeline/dto/recommendation.dto';
import type { FlaggedTransactionDto } from '../dto/export.dto';
import { dailyBalanceChart, monthLabel, monthlyRevenueChart, scoreBars, scoreBarsHeight } from './charts';
import { fallbackFilesFor, fallbackFontBytes, fontFiles, hasGlyph, useCmapLayout } from './fonts';
import { COLOR, CONTENT_WIDTH, fitText, PAGE, ReportWriter, scoreColor, wrapText } from './layout';
import { accountsAndAffordability } from './report-pdf-accounts';
import { entityTypeLabel, sourceTypeLabel } from '../../pipeline/mappers/labels';

/** What the PDF report is made of: the typed deal report, its recommendation, the flagged transactions. */
export interface ReportPdfInput {
  deal: DealDetailDto;
  recommendation: RecommendationDto | null;
  flagged: FlaggedTransactionDto[];
  /** all flagged transactions of the deal (`flagged` may be the first ones only) */
  flaggedTotal: number;
  generatedAt: Date;
  /** the name on the cover and in the footer */
  brand?: string;
}

const HEALTH_LABELS: Record<string, string> = {
  revenue: 'Revenue',
  balance_health: 'Balance health',
  nsf_overdraft: 'NSF / overdraft',
  deposit_frequency: 'Deposit frequency',
  revenue_trend: 'Revenue trend',
  debt_service: 'Debt service',
  transaction_screening: 'Transaction screening',
  health_score: 'Health score',
  cross_doc: 'Cross-document consistency',
};
const BUCKET_LABELS: Record<string, string> = {
  nsf_fee: 'NSF fee',
  overdraft_fee: 'Overdraft fee',
  returned_item: 'Returned item',
  duplicate_transaction: 'Duplicate transaction',
  gambling: 'Gambling',
  mca_payment: 'MCA payment',
  large_unusual_deposit: 'Large unusual deposit',
  round_number_deposit: 'Round-number deposit',
  cash_withdrawal: 'Cash withdrawal',
  repeat_charge: 'Repeat charge',
};
const DECISION = {
  approve: { label: 'APPROVE', color: COLOR.good, soft: COLOR.goodSoft },
  review: { label: 'REVIEW', color: COLOR.warn, soft: COLOR.warnSoft },
  decline: { label: 'DECLINE', color: COLOR.bad, soft: COLOR.badSoft },
} as const;

/** Flagged transactions listed per screening bucket (the CSV export has them all). */
export const FLAGGED_PER_BUCKET = 6;

const titleCase = (s: string) => s.replace(/_/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
const usd = (n: number | null | undefined, digits = 0) =>
  n === null || n === undefined || !Number.isFinite(n)
    ? '—'
    : n.toLocaleString('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: digits, maximumFractionDigits: digits });
const num = (n: number | null | undefined, digits = 0) =>
  n === null || n === undefined ? '—' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const pct = (n: number | null | undefined) => (n === null || n === undefined ? '—' : `${(n * 100).toFixed(1)}%`);
const period = (start: string | null, end: string | null) =>
  !start || !end ? '—' : start.slice(0, 4) === end.slice(0, 4) ? `${start} – ${end.slice(5)}` : `${start} – ${end}`;
const longDate = (iso: string | null | undefined) => {
  if (!iso) return '—';
  const d = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
  return d.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
};

/** The size at which `text` fits `width`, from `size` down to `min` (below it, the text is cut). */
function fitSize(w: ReportWriter, text: string, font: PDFFont, size: number, width: number, min: number): number {
  const at = w.width(text, size, font);
  return at <= width ? size : Math.max(min, Math.floor(((size * width) / at) * 10) / 10);
}

/** Renders the underwriting report. Pure: same input, same pages (the generation time is an input). */
export async function renderDealReportPdf(input: ReportPdfInput): Promise<Uint8Array> {
  const { deal } = input;
  const brand = input.brand ?? 'Ledgerlens';
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const files = fontFiles();
  const [regular, semibold, bold] = await Promise.all([
    doc.embedFont(files.regular, { subset: true }),
    doc.embedFont(files.semibold, { subset: true }),
    doc.embedFont(files.bold, { subset: true }),
  ]);
  for (const font of [regular, semibold, bold]) useCmapLayout(font);
  // every text the report may draw comes from its input: the fallback fonts it needs, embedded (as subsets) before drawing
  const fallback = await Promise.all(
    fallbackFilesFor(JSON.stringify(input), (cp) => hasGlyph(regular, cp)).map((file) =>
      doc.embedFont(fallbackFontBytes(file), { subset: true }),
    ),
  );
  const title = `Underwriting report: ${deal.business_name}`;
  doc.setTitle(title);
  doc.setAuthor(brand);
  doc.setSubject(`Deal ${deal.id}`);
  doc.setCreator(brand);
  doc.setProducer(`${brand} (pdf-lib)`);
  doc.setCreationDate(input.generatedAt);
  doc.setModificationDate(input.generatedAt);

  const w = new ReportWriter(doc, { regular, semibold, bold, fallback }, `${deal.business_name} · Deal #${deal.id} · Underwriting report`);
  w.newPage();
  cover(w, input, brand);
  const review = reviewNotes(input);
  const rest = reviewPanel(w, review);
  keyFigures(w, deal);
  summary(w, input);
  w.ensure(PAGE.height / 2);
  cashFlow(w, deal);
  scoring(w, input);
  risk(w, input);
  accountsAndAffordability(w, deal);
  documents(w, deal, rest);
  w.finish(
    `${brand} · Deal #${deal.id} · Report date ${longDate(deal.report_date)} · Generated ${input.generatedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC · Confidential`,
  );
  return doc.save({ useObjectStreams: true });
}

/** What needs a human look, most important first; `lead` is why the recommendation is review, when it is. */
interface ReviewNotes {
  lead: string | null;
  notes: string[];
}

/**
 * The review notes of the report: the statements whose figures cannot be relied on (failed
 * reconciliation, marked for review) first, then every other document note, cross-document
 * finding and related deal.
 */
function reviewNotes(input: ReportPdfInput): ReviewNotes {
  const { deal, recommendation } = input;
  const rec = recommendation ?? deal.recommendation;
  const lead = rec?.decision === 'review' ? (rec.reasons[0] ?? null) : null;
  const unreconciled = new Set(deal.statements.filter((s) => s.reconciled === false).map((s) => s.document_id));
  const docs = [...(deal.review?.documents ?? [])].sort(
    (a, b) => Number(unreconciled.has(b.document_id)) - Number(unreconciled.has(a.document_id)),
  );
  return {
    lead,
    notes: [
      // a statement the lead already names with its failed check is not repeated
      ...docs.filter((d) => !lead?.includes(`statement ${d.filename} `)).map((d) => `${d.filename}: ${d.reasons.join('; ')}`),
      ...(deal.cross_doc?.findings ?? []).filter((f) => f.severity !== 'info').map((f) => f.message),
      ...deal.related_deals.map((r) => r.message),
    ],
  };
}

/** Notes shown on page 1 at most; the rest are listed in full at the end. */
const PANEL_NOTES = 6;

/**
 * Page 1, right under the recommendation: what needs review before anyone relies on the figures,
 * the held recommendation's reason first. Returns the notes left for the end of the report.
 */
function reviewPanel(w: ReportWriter, review: ReviewNotes): string[] {
  const { lead, notes } = review;
  if (!lead && !notes.length) {
    w.text('Nothing needs a human look: every statement reconciled and read with confidence.', PAGE.margin, w.y - 10, {
      size: 9,
      color: COLOR.good,
      width: CONTENT_WIDTH,
    });
    w.space(22);
    return [];
  }
  const size = 8.5;
  const leading = size * 1.42;
  const inner = CONTENT_WIDTH - 28;
  const shown = notes.slice(0, PANEL_NOTES);
  const rest = notes.slice(PANEL_NOTES);
  const leadLines = lead ? w.lines(lead, size + 0.5, inner, w.fonts.semibold) : [];
  const noteLines = shown.map((n) => w.lines(n, size, inner - 10));
  const footer = rest.length
    ? `${rest.length} more note${rest.length === 1 ? '' : 's'} under Needs review at the end of the report.`
    : null;
  const height =
    30 +
    leadLines.length * (leading + 0.5) +
    (lead && shown.length ? 4 : 0) +
    noteLines.reduce((a, l) => a + l.length * leading + 2, 0) +
    (footer ? leading + 2 : 0) +
    6;
  const top = w.y;
  w.page.drawRectangle({ x: PAGE.margin, y: top - height, width: CONTENT_WIDTH, height, color: COLOR.warnSoft });
  w.page.drawRectangle({ x: PAGE.margin, y: top - height, width: 4, height, color: COLOR.warn });
  w.text('NEEDS REVIEW', PAGE.margin + 16, top - 16, { size: 7.5, font: w.fonts.semibold, color: COLOR.warn });
  w.text(
    `${notes.length + (lead ? 1 : 0)} note${notes.length + (lead ? 1 : 0) === 1 ? '' : 's'} before relying on these figures`,
    PAGE.margin + 90,
    top - 16,
    { size: 7.5, color: COLOR.muted, width: CONTENT_WIDTH - 106 },
  );
  let y = top - 30;
  for (const line of leadLines) {
    w.text(line, PAGE.margin + 16, y - size, { size: size + 0.5, font: w.fonts.semibold, color: COLOR.ink });
    y -= leading + 0.5;
  }
  if (lead && shown.length) y -= 4;
  for (const lines of noteLines) {
    lines.forEach((line, i) => {
      if (i === 0) w.page.drawCircle({ x: PAGE.margin + 19, y: y - size + 3, size: 1.6, color: COLOR.warn });
      w.text(line, PAGE.margin + 26, y - size, { size, color: COLOR.text });
      y -= leading;
    });
    y -= 2;
  }
  if (footer) w.text(footer, PAGE.margin + 16, y - size, { size, color: COLOR.muted, width: inner });
  w.y = top - height - 10;
  return rest;
}

function cover(w: ReportWriter, input: ReportPdfInput, brand: string): void {
  const { deal, recommendation } = input;
  const b = deal.business;
  // band
  w.page.drawRectangle({ x: 0, y: PAGE.height - 150, width: PAGE.width, height: 150, color: COLOR.ink });
  w.text(`${brand.toUpperCase()} · UNDERWRITING REPORT`, PAGE.margin, PAGE.height - 40, {
    size: 8.5,
    font: w.fonts.semibold,
    color: rgb(0.7, 0.77, 0.9),
  });
  w.text(deal.business_name, PAGE.margin, PAGE.height - 74, {
    size: fitSize(w, deal.business_name, w.fonts.bold, 24, CONTENT_WIDTH, 15),
    font: w.fonts.bold,
    color: COLOR.white,
    width: CONTENT_WIDTH,
  });
  const sub = [b.dba_name ? `DBA ${b.dba_name}` : null, b.industry, b.entity_type ? entityTypeLabel(b.entity_type) : null]
    .filter(Boolean)
    .join('  ·  ');
  if (sub) w.text(sub, PAGE.margin, PAGE.height - 94, { size: 10.5, color: rgb(0.85, 0.89, 0.95), width: CONTENT_WIDTH });
  const facts = [
    ['Deal', `#${deal.id}`],
    ['Report date', longDate(deal.report_date)],
    ['Owner', b.owner_name ?? '—'],
    ['EIN', b.ein ? `••-•••${b.ein.slice(-4)}` : '—'],
    ['Source', b.source_type ? sourceTypeLabel(b.source_type) : '—'],
  ];
  let fx = PAGE.margin;
  const fw = CONTENT_WIDTH / facts.length;
  for (const [k, v] of facts) {
    w.text(k.toUpperCase(), fx, PAGE.height - 120, { size: 6.5, font: w.fonts.semibold, color: rgb(0.62, 0.7, 0.84) });
    w.text(v, fx, PAGE.height - 133, {
      size: fitSize(w, v, w.fonts.semibold, 9.5, fw - 8, 7),
      font: w.fonts.semibold,
      color: COLOR.white,
      width: fw - 8,
    });
    fx += fw;
  }
  w.y = PAGE.height - 172;

  // decision card + health card
  const cardH = 112;
  const top = w.y;
  const leftW = CONTENT_WIDTH * 0.58;
  const rightX = PAGE.margin + leftW + 12;
  const rightW = CONTENT_WIDTH - leftW - 12;
  const rec = recommendation;
  const d = DECISION[(rec?.decision ?? 'review') as keyof typeof DECISION] ?? DECISION.review;
  w.page.drawRectangle({ x: PAGE.margin, y: top - cardH, width: leftW, height: cardH, color: d.soft });
  w.page.drawRectangle({ x: PAGE.margin, y: top - cardH, width: 4, height: cardH, color: d.color });
  w.text('RECOMMENDATION', PAGE.margin + 16, top - 20, { size: 7.5, font: w.fonts.semibold, color: COLOR.muted });
  w.text(rec ? d.label : 'NO RECOMMENDATION', PAGE.margin + 16, top - 46, { size: 22, font: w.fonts.bold, color: d.color });
  if (rec) {
    const stats: [string, string][] = [
      ['Score', `${rec.total_score.toFixed(1)} / 100`],
      ['Grade', rec.grade],
      ['Max advance', usd(rec.max_advance)],
      ['CFCR', `${rec.cfcr.toFixed(2)}×`],
    ];
    const sw = (leftW - 32) / stats.length;
    stats.forEach(([k, v], i) => {
      const x = PAGE.margin + 16 + i * sw;
      w.text(k.toUpperCase(), x, top - 72, { size: 6.5, font: w.fonts.semibold, color: COLOR.muted });
      w.text(v, x, top - 87, { size: 11.5, font: w.fonts.bold, color: COLOR.ink, width: sw - 6 });
    });
    w.text(`Ruleset: ${rec.ruleset_name} · Requested ${usd(deal.funding_amount_requested)}`, PAGE.margin + 16, top - 104, {
      size: 7.5,
      color: COLOR.muted,
      width: leftW - 32,
    });
  }
  // health gauge
  const health = deal.health;
  w.page.drawRectangle({ x: rightX, y: top - cardH, width: rightW, height: cardH, color: COLOR.panel });
  w.text('HEALTH SCORE', rightX + 14, top - 20, { size: 7.5, font: w.fonts.semibold, color: COLOR.muted });
  if (health) {
    const c = scoreColor(health.score);
    const cx = rightX + 52;
    const cy = top - 66;
    ring(w, cx, cy, 32, health.score, c.strong);
    w.text(health.score.toFixed(0), cx - 30, cy - 7, { size: 20, font: w.fonts.bold, color: COLOR.ink, align: 'center', width: 60 });
    w.text(`Grade ${health.grade}`, rightX + 98, top - 56, { size: 16, font: w.fonts.bold, color: c.strong });
    w.text('six-factor composite', rightX + 98, top - 72, { size: 8, color: COLOR.muted });
    w.text(`${deal.screening?.total_flags ?? 0} screening flags`, rightX + 98, top - 86, { size: 8, color: COLOR.muted });
  } else w.text('Not scored', rightX + 14, top - 60, { size: 12, font: w.fonts.semibold, color: COLOR.muted });
  w.y = top - cardH - 14;
}

/** A score ring: a light full circle and the score as an arc, drawn as vector paths. */
function ring(w: ReportWriter, cx: number, cy: number, r: number, score: number, color: ReturnType<typeof rgb>): void {
  w.page.drawCircle({ x: cx, y: cy, size: r, borderColor: rgb(0.86, 0.89, 0.94), borderWidth: 6 });
  const frac = Math.max(0, Math.min(1, score / 100));
  if (frac <= 0) return;
  const steps = Math.max(2, Math.ceil(frac * 64));
  const pts: string[] = [];
  for (let i = 0; i <= steps; i++) {
    const a = Math.PI / 2 - (i / steps) * frac * 2 * Math.PI;
    pts.push(`${i === 0 ? 'M' : 'L'} ${(cx + r * Math.cos(a)).toFixed(2)} ${(-(cy + r * Math.sin(a))).toFixed(2)}`);
  }
  w.page.drawSvgPath(pts.join(' '), { x: 0, y: 0, borderColor: color, borderWidth: 6 });
}

function statGrid(w: ReportWriter, stats: [string, string][], columns = 4): void {
  const cellW = CONTENT_WIDTH / columns;
  const cellH = 40;
  const rows = Math.ceil(stats.length / columns);
  w.ensure(rows * cellH + 4);
  stats.forEach(([k, v], i) => {
    const col = i % columns;
    const row = Math.floor(i / columns);
    const x = PAGE.margin + col * cellW;
    const y = w.y - row * cellH;
    w.page.drawRectangle({
      x: x + 2,
      y: y - cellH + 4,
      width: cellW - 4,
      height: cellH - 4,
      borderColor: COLOR.line,
      borderWidth: 0.6,
      color: COLOR.white,
    });
    w.text(k.toUpperCase(), x + 10, y - 14, { size: 6.5, font: w.fonts.semibold, color: COLOR.muted, width: cellW - 16 });
    w.text(v, x + 10, y - 29, {
      size: fitSize(w, v, w.fonts.bold, 11.5, cellW - 16, 8.5),
      font: w.fonts.bold,
      color: COLOR.ink,
      width: cellW - 16,
    });
  });
  w.y -= rows * cellH + 4;
}

function keyFigures(w: ReportWriter, deal: DealDetailDto): void {
  const f = deal.financials;
  const c = deal.coverage;
  const n = deal.nsf_overdraft;
  w.heading('Financials', c ? `${longDate(c.period_start)} – ${longDate(c.period_end)}` : undefined, 84);
  statGrid(w, [
    ['Requested', usd(deal.funding_amount_requested)],
    ['Avg monthly deposits', usd(f?.avg_monthly_deposits)],
    ['Avg monthly revenue', usd(f?.avg_monthly_revenue)],
    ['Avg daily balance', usd(f?.avg_daily_balance)],
    ['Total deposits', usd(f?.total_deposits)],
    ['Total withdrawals', usd(f?.total_withdrawals)],
    ['Net cash flow', usd(f?.net_cash_flow)],
    ['Ending balance', usd(f?.ending_balance)],
    ['Coverage', c ? `${c.months_covered} mo · ${c.days_covered} days` : '—'],
    ['Statements', c ? String(c.statement_count) : '—'],
    ['Deposits / month', num(f?.deposit_frequency_per_month, 1)],
    ['Negative days', num(f?.negative_balance_days)],
    ['NSF fees', n ? `${n.total_nsf_fees} (${usd(n.nsf_fee_amount)})` : '—'],
    ['Overdraft fees', n ? `${n.total_overdraft_fees} (${usd(n.overdraft_fee_amount)})` : '—'],
    ['Months with NSF', n ? String(n.nsf_months) : '—'],
    ['Largest deposit', usd(f?.largest_deposit)],
  ]);
}

function summary(w: ReportWriter, input: ReportPdfInput): void {
  const { deal } = input;
  w.heading('Summary');
  w.paragraph(deal.ai_summary ?? 'No summary was generated for this deal.', { size: 9.5, color: COLOR.text });
}

function cashFlow(w: ReportWriter, deal: DealDetailDto): void {
  w.heading('Monthly revenue', `${deal.monthly.length} months`, 180);
  monthlyRevenueChart(w, deal.monthly, 150);
  w.heading('Daily balance', deal.financials ? `${deal.financials.negative_balance_days} negative days` : undefined, 180);
  dailyBalanceChart(w, deal.daily_balances, 150);
  w.heading('Monthly breakdown', undefined, (Math.min(deal.monthly.length, 14) + 1) * 16.5 + 6);
  w.table(
    [
      { title: 'Month', width: 62 },
      { title: 'Deposits', width: 80, align: 'right' },
      { title: 'Revenue', width: 80, align: 'right' },
      { title: 'Withdrawals', width: 80, align: 'right' },
      { title: 'Dep. #', width: 44, align: 'right' },
      { title: 'Avg balance', width: 80, align: 'right' },
      { title: 'Ending', width: 80, align: 'right' },
      { title: 'NSF', width: 34, align: 'right' },
      { title: 'OD', width: 34, align: 'right' },
    ],
    deal.monthly.map((m) => [
      monthLabel(m.month),
      usd(m.deposits),
      usd(m.revenue),
      usd(m.withdrawals),
      String(m.deposit_count),
      usd(m.avg_daily_balance),
      usd(m.ending_balance),
      String(m.nsf_count),
      String(m.overdraft_count),
    ]),
    {
      cellColor: (i, j) => (j >= 7 && Number(j === 7 ? deal.monthly[i].nsf_count : deal.monthly[i].overdraft_count) > 0 ? COLOR.bad : null),
    },
  );
}

function scoring(w: ReportWriter, input: ReportPdfInput): void {
  const { deal, recommendation } = input;
  if (recommendation) {
    const factors = Object.keys(recommendation.factor_scores).length;
    w.heading(
      'Recommendation factors',
      `${recommendation.ruleset_name} · total ${recommendation.total_score.toFixed(1)}`,
      scoreBarsHeight(factors),
    );
    scoreBars(
      w,
      Object.entries(recommendation.factor_scores).map(([k, v]) => ({
        label: HEALTH_LABELS[k] ?? titleCase(k),
        score: v.score,
        note: `weight ${v.weight < 1 && v.weight > 0 ? `${(v.weight * 100).toFixed(0)}%` : v.weight} · adds ${v.weighted.toFixed(1)}`,
      })),
    );
    if (recommendation.reasons.length) {
      // the subtitle stays with the first reason
      w.ensure(18 + w.bulletHeight(recommendation.reasons[0]));
      w.text('Why this recommendation', PAGE.margin, w.y - 10, { size: 10, font: w.fonts.semibold, color: COLOR.ink });
      w.space(18);
      w.bullets(recommendation.reasons);
    }
  }
  if (deal.health) {
    w.heading(
      'Health score factors',
      `score ${deal.health.score.toFixed(1)} · grade ${deal.health.grade}`,
      scoreBarsHeight(Object.keys(deal.health.factors).length),
    );
    scoreBars(
      w,
      Object.entries(deal.health.factors).map(([k, v]) => ({ label: HEALTH_LABELS[k] ?? titleCase(k), score: v })),
    );
  }
}

function risk(w: ReportWriter, input: ReportPdfInput): void {
  const { deal } = input;
  // NSF / overdraft
  const n = deal.nsf_overdraft;
  w.heading(
    'NSF and overdraft',
    n ? `${n.total_nsf_fees} NSF · ${n.total_overdraft_fees} overdraft` : undefined,
    ReportWriter.tableHeight(2),
  );
  if (deal.nsf_events.length) {
    w.table(
      [
        { title: 'Date', width: 70 },
        { title: 'Type', width: 70 },
        { title: 'Description', width: 280, lines: 2 },
        { title: 'Amount', width: 80, align: 'right' },
      ],
      deal.nsf_events.map((e) => [e.date, e.type === 'nsf' ? 'NSF' : 'Overdraft', e.description, usd(e.amount, 2)]),
    );
  } else w.paragraph('No NSF or overdraft fees in the covered period.', { color: COLOR.good });

  // lender positions
  const lp = deal.lender_positions;
  const stacked = lp && lp.stacking_count > 1 ? ` · up to ${lp.stacking_count} at once` : '';
  w.heading(
    'Lender positions',
    lp ? `${lp.active_count} active · ${usd(lp.estimated_monthly_total)} / month${stacked}` : undefined,
    ReportWriter.tableHeight(2),
  );
  if (lp?.positions.length) {
    const start = { new: '', renewal: ' (renewal)', modification: ' (modified)' } as const;
    w.table(
      [
        { title: 'Lender', width: 150, lines: 2 },
        { title: 'Cadence', width: 60 },
        { title: 'Payment', width: 70, align: 'right' },
        { title: 'Payments', width: 55, align: 'right', lines: 2 },
        { title: 'Monthly', width: 75, align: 'right' },
        { title: 'Funded / left', width: 70, align: 'right', lines: 2 },
        { title: 'Last seen', width: 70 },
      ],
      lp.positions.map((p) => [
        `${p.lender_name ?? p.counterparty}${p.known_lender ? '' : ' (?)'}${start[p.start_reason] ?? ''}`,
        titleCase(p.frequency),
        usd(p.payment_amount, 2),
        `${p.payment_count}${p.missed_payments ? ` · ${p.missed_payments} missed` : ''}${p.bounced_payments ? ` · ${p.bounced_payments} returned` : ''}`,
        usd(p.estimated_monthly_total),
        p.funding_amount !== null ? `${usd(p.funding_amount)} / ${usd(p.estimated_remaining_balance ?? 0)}` : '-',
        `${p.last_seen}${p.is_active ? '' : ' (ended)'}`,
      ]),
    );
  } else w.paragraph('No recurring lender debits found.', { color: COLOR.good });

  // screening
  const s = deal.screening;
  w.heading(
    'Transaction screening',
    s ? `${s.total_flags} of ${s.transaction_count} transactions flagged (${pct(s.flagged_ratio)})` : undefined,
  );
  if (s) {
    const buckets = Object.entries(s.buckets).filter(([, v]) => v > 0);
    if (buckets.length) {
      const cellW = CONTENT_WIDTH / 5;
      w.ensure(Math.ceil(buckets.length / 5) * 34 + 6);
      buckets.forEach(([k, v], i) => {
        const x = PAGE.margin + (i % 5) * cellW;
        const y = w.y - Math.floor(i / 5) * 34;
        w.page.drawRectangle({ x: x + 2, y: y - 30, width: cellW - 4, height: 28, color: COLOR.warnSoft });
        const count = String(v);
        const cw = w.fonts.bold.widthOfTextAtSize(count, 13);
        w.text(count, x + 9, y - 20, { size: 13, font: w.fonts.bold, color: COLOR.warn });
        // the label on two lines when one is too short for it
        const label = w.lines(BUCKET_LABELS[k] ?? titleCase(k), 7.5, cellW - 22 - cw);
        if (label.length === 1) w.text(label[0], x + 15 + cw, y - 18.5, { size: 7.5, color: COLOR.text, width: cellW - 22 - cw });
        else
          [label[0], label.slice(1).join(' ')].forEach((line, i) =>
            w.text(line, x + 15 + cw, y - 13.5 - i * 9, { size: 7.5, color: COLOR.text, width: cellW - 22 - cw }),
          );
      });
      w.y -= Math.ceil(buckets.length / 5) * 34 + 6;
    }
  }
  if (input.flagged.length) {
    const byBucket = new Map<string, FlaggedTransactionDto[]>();
    for (const t of input.flagged) byBucket.set(t.screening_bucket, [...(byBucket.get(t.screening_bucket) ?? []), t]);
    const rows: string[][] = [];
    let shown = 0;
    for (const [bucket, list] of byBucket) {
      const pick = [...list].sort((a, b) => Math.abs(b.amount) - Math.abs(a.amount)).slice(0, FLAGGED_PER_BUCKET);
      pick.sort((a, b) => a.date.localeCompare(b.date));
      shown += pick.length;
      for (const t of pick) rows.push([t.date, BUCKET_LABELS[bucket] ?? bucket, t.description, usd(t.amount, 2), t.flag_reason ?? '']);
    }
    w.table(
      [
        { title: 'Date', width: 62 },
        { title: 'Bucket', width: 92, lines: 2 },
        { title: 'Description', width: 160, lines: 2 },
        { title: 'Amount', width: 70, align: 'right' },
        { title: 'Reason', width: 200, lines: 3 },
      ],
      rows,
      { size: 8 },
    );
    if (input.flaggedTotal > shown) {
      w.paragraph(
        `The largest ${FLAGGED_PER_BUCKET} of each bucket are listed; all ${input.flaggedTotal} flagged transactions are in the CSV export (Screening Bucket, Flag Reason).`,
        { size: 8, color: COLOR.muted },
      );
    }
  } else if (!s?.total_flags) w.paragraph('No transaction was flagged.', { color: COLOR.good });
}

function documents(w: ReportWriter, deal: DealDetailDto, moreNotes: string[]): void {
  w.heading('Statements', deal.coverage ? `${deal.coverage.statement_count} statements` : undefined, ReportWriter.tableHeight(2));
  w.table(
    [
      { title: 'Document', width: 122, lines: 2 },
      { title: 'Bank', width: 88, lines: 2 },
      { title: 'Acct', width: 44 },
      { title: 'Period', width: 116 },
      { title: 'Deposits', width: 70, align: 'right' },
      { title: 'Txns', width: 36, align: 'right' },
      { title: 'Reconciled', width: 62 },
      { title: 'Risk', width: 52 },
    ],
    deal.statements.map((s) => [
      s.filename,
      s.bank_name ?? '—',
      s.account_number_last4 ? `••${s.account_number_last4}` : '—',
      period(s.period_start, s.period_end),
      usd(s.total_deposits),
      String(s.transaction_count),
      s.reconciled === null ? '—' : s.reconciled ? 'Yes' : 'No',
      titleCase(s.risk_level),
    ]),
    {
      cellColor: (i, j) => {
        const st = deal.statements[i];
        if (j === 6 && st.reconciled === false) return COLOR.bad;
        if (j === 7 && st.risk_level === 'high') return COLOR.bad;
        if (j === 7 && st.risk_level === 'medium') return COLOR.warn;
        return null;
      },
    },
  );

  const a = deal.authenticity;
  w.heading('Document authenticity', a ? `deal risk: ${a.risk_level}` : undefined);
  if (a?.reasons.length) w.bullets(a.reasons, { color: COLOR.bad });
  else w.paragraph('No document shows signs of tampering.', { color: COLOR.good });

  // page 1 shows what needs review; the notes it had no room for follow here
  if (moreNotes.length) {
    w.heading(
      'Needs review',
      `${moreNotes.length} more note${moreNotes.length === 1 ? '' : 's'} (see page 1)`,
      w.bulletHeight(moreNotes[0]),
    );
    w.bullets(moreNotes, { color: COLOR.warn });
  }
}

/** For tests and tooling: the lines a text block wraps to (same rules as the report). */
export { wrapText, fitText };
