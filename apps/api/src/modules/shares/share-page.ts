import type { SharedOwnTransfersDto, SharedPositionsDto, SharedRevenueDto, SharedRevenueRowDto, ShareViewDto } from './dto/share.dto';
import type { AffordabilityDto, RevenueExclusionsDto } from '../pipeline/dto/report.dto';
import { entityTypeLabel } from '../pipeline/mappers/labels';

/**
 * The human page behind a share link's `url`: one self-contained HTML document (inline CSS, no
 * script, no external request), readable on a phone. Every value is escaped. The underwriting
 * tables (positions, true revenue, own-account transfers, affordability) show the share DTO's
 * fields only; a wide table scrolls inside its card.
 */

const esc = (value: unknown): string =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const usd = (n: number | null | undefined, digits = 0): string =>
  n === null || n === undefined
    ? '—'
    : n.toLocaleString('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The system's recommendation, in words. */
const RECOMMENDATION_LABEL: Record<string, string> = { approve: 'Approve', decline: 'Decline', review: 'Review' };
/** A person's recorded decision, in words. */
const DECISION_LABEL: Record<string, string> = { approve: 'Approved', decline: 'Declined', funded: 'Funded' };

const TONE: Record<string, string> = { approve: 'good', funded: 'good', review: 'warn', decline: 'bad' };

const longDate = (iso: string | null): string | null => {
  if (!iso) return null;
  const d = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
  return Number.isNaN(d.getTime())
    ? null
    : d.toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
};

const shortDate = (iso: string | null): string => {
  if (!iso) return '—';
  const d = new Date(`${iso.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
};

const monthLabel = (ym: string): string => {
  const d = new Date(`${ym}-01T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? ym : d.toLocaleDateString('en-US', { year: 'numeric', month: 'short', timeZone: 'UTC' });
};

const CADENCE: Record<string, string> = {
  daily: 'Daily',
  weekly: 'Weekly',
  biweekly: 'Every 2 weeks',
  monthly: 'Monthly',
  irregular: 'Irregular',
};

/** The revenue table's exclusion columns, in the report's order. */
const EXCLUSIONS: Array<[keyof RevenueExclusionsDto, string]> = [
  ['transfer', 'Transfers'],
  ['loan_proceeds', 'Loan proceeds'],
  ['refund', 'Refunds'],
  ['owner_injection', 'Owner injections'],
  ['other_non_revenue', 'Other non-revenue'],
];

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function positionsSection(p: SharedPositionsDto | null): string {
  if (!p) return '';
  if (!p.positions.length) return '<h2>Lender positions</h2><div class="card note">No lender positions found in the statements.</div>';
  const rows = p.positions.map((x) => {
    const marks = [
      x.start_reason === 'renewal' ? '<span class="mark warn">Renewal</span>' : '',
      x.start_reason === 'modification' ? '<span class="mark warn">Modified</span>' : '',
      x.missed_payments ? `<span class="mark bad">${esc(plural(x.missed_payments, 'missed'))}</span>` : '',
      x.bounced_payments ? `<span class="mark bad">${esc(plural(x.bounced_payments, 'bounced'))}</span>` : '',
      x.stacked ? '<span class="mark warn">Stacked</span>' : '',
      x.is_active ? '' : '<span class="mark">Ended</span>',
    ].join('');
    return `<tr><td>${esc(x.lender)}</td><td>${esc(CADENCE[x.frequency] ?? x.frequency)}</td><td>${esc(usd(x.payment_amount, 2))}</td>
<td>${esc(shortDate(x.first_seen))} – ${esc(shortDate(x.last_seen))}</td><td>${esc(usd(x.funding_amount))}</td><td>${esc(usd(x.estimated_remaining_balance))}</td><td class="marks">${marks || '—'}</td></tr>`;
  });
  return `<h2>Lender positions</h2>
<div class="card table"><table aria-label="Lender positions"><caption>${esc(plural(p.positions.length, 'position'))}, ${esc(String(p.active_count))} active${p.stacking_count > 1 ? `, up to ${esc(String(p.stacking_count))} at once` : ''} · about ${esc(usd(p.estimated_monthly_total))} a month</caption>
<thead><tr><th scope="col">Lender</th><th scope="col">Cadence</th><th scope="col">Payment</th><th scope="col">First – last seen</th><th scope="col">Funding</th><th scope="col">Est. remaining</th><th scope="col" class="marks">Marks</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>`;
}

function revenueSection(r: SharedRevenueDto | null): string {
  if (!r || !r.months.length) return '';
  // a class that excluded nothing in any month gets no column (the totals say so)
  const columns = EXCLUSIONS.filter(([k]) => r.totals.excluded[k] !== 0);
  const cells = (row: SharedRevenueRowDto) =>
    [
      `<td>${esc(usd(row.gross_deposits))}</td>`,
      ...columns.map(([k]) => `<td>${esc(usd(row.excluded[k]))}</td>`),
      `<td>${esc(usd(row.excluded_total))}</td>`,
      `<td><strong>${esc(usd(row.true_revenue))}</strong></td>`,
    ].join('');
  return `<h2>True revenue</h2>
<div class="card table"><table aria-label="True revenue by month"><caption>Deposits less what is not revenue, by month</caption>
<thead><tr><th scope="col">Month</th><th scope="col">Gross deposits</th>${columns.map(([, label]) => `<th scope="col">${esc(label)}</th>`).join('')}<th scope="col">Excluded</th><th scope="col">True revenue</th></tr></thead>
<tbody>${r.months.map((m) => `<tr><td>${esc(monthLabel(m.month))}</td>${cells(m)}</tr>`).join('\n')}</tbody>
<tfoot><tr><td>Total</td>${cells(r.totals)}</tr></tfoot></table></div>`;
}

function transfersAndAffordability(t: SharedOwnTransfersDto | null, a: AffordabilityDto | null): string {
  const transfers = t
    ? `<div class="card metric" aria-label="Own-account transfers"><div class="label">Own-account transfers</div><div class="value">${esc(plural(t.count, 'transfer'))} · ${esc(usd(t.total))}</div>
<div class="note">Moved between the merchant's own accounts: neither revenue nor expense.</div></div>`
    : '';
  const affordability = a
    ? `<div class="card" aria-label="Affordability"><div class="label">Affordability: max advance</div><div class="big">${esc(usd(a.max_advance))}</div>
<ol class="steps">${a.steps.map((step) => `<li>${esc(step)}</li>`).join('')}</ol></div>`
    : '';
  return transfers || affordability ? `<h2>Affordability</h2><section class="duo">${affordability}${transfers}</section>` : '';
}

const STYLE = `
:root{--ink:#14213d;--muted:#5c677d;--line:#e3e7ee;--bg:#f5f7fa;--card:#fff;--accent:#1f4e9c;--good:#1b7f4b;--warn:#a86b00;--bad:#b42318}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:16px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;-webkit-text-size-adjust:100%}
header{background:var(--ink);color:#fff;padding:20px 16px 28px}
.wrap{max-width:880px;margin:0 auto}
.brand{font-size:13px;letter-spacing:.08em;text-transform:uppercase;opacity:.75}
h1{font-size:26px;line-height:1.2;margin:6px 0 4px;word-wrap:break-word}
.sub{opacity:.85;font-size:15px}
main{padding:16px 16px 32px}
.hero{display:grid;grid-template-columns:1fr;gap:12px}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:16px}
.score{display:flex;align-items:center;gap:16px}
.ring{flex:none;width:72px;height:72px;border-radius:50%;display:grid;place-items:center;font-weight:700;font-size:24px;color:var(--accent);background:conic-gradient(var(--accent) calc(var(--p)*1%),#e8edf5 0)}
.ring span{width:58px;height:58px;border-radius:50%;background:#fff;display:grid;place-items:center}
.label{color:var(--muted);font-size:13px;text-transform:uppercase;letter-spacing:.05em}
.big{font-size:22px;font-weight:700}
.pill{display:inline-block;padding:3px 12px;border-radius:999px;font-weight:600;font-size:15px;color:#fff;background:var(--muted)}
.pill.good{background:var(--good)}.pill.warn{background:var(--warn)}.pill.bad{background:var(--bad)}
.grid{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:12px;margin-top:12px}
.metric .value{font-size:19px;font-weight:650;margin-top:2px;word-wrap:break-word}
h2{font-size:17px;margin:24px 0 8px}
.summary{white-space:pre-line}
footer{color:var(--muted);font-size:13px;text-align:center;padding:8px 16px 28px}
form{display:grid;gap:12px;margin-top:8px}
input[type=password]{font:inherit;padding:12px;border:1px solid #b9c2d0;border-radius:8px;width:100%}
button{font:inherit;font-weight:600;padding:12px;border:0;border-radius:8px;background:var(--accent);color:#fff;cursor:pointer}
.error{color:var(--bad);font-weight:600}
.alert{border-color:var(--warn);border-left:6px solid var(--warn);background:#fff8eb;margin-bottom:12px}
.alert .label{color:var(--warn);font-weight:700}
.alert ul{margin:6px 0 0;padding-left:20px}.alert li{margin:4px 0;word-wrap:break-word}
.note{color:var(--muted);font-size:13px}
.table{padding:0;overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:14px}
caption{text-align:left;padding:12px 16px 4px;color:var(--muted);font-size:13px}
th,td{padding:8px 12px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap;vertical-align:top}
th:first-child,td:first-child{text-align:left;white-space:normal;min-width:8em}
thead th{color:var(--muted);font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.04em}
tfoot td{font-weight:650;border-top:1px solid var(--line);border-bottom:0}
tbody tr:last-child td{border-bottom:0}
.marks{text-align:left;white-space:normal;min-width:12em}
.mark{display:inline-block;margin:0 4px 4px 0;padding:1px 8px;border-radius:999px;font-size:12px;font-weight:600;background:#e8edf5;color:var(--ink)}
.mark.warn{background:#fff1d6;color:#7a4e00}.mark.bad{background:#fde7e5;color:var(--bad)}
.steps{margin:8px 0 0;padding-left:22px}.steps li{margin:4px 0;word-wrap:break-word}
.duo{display:grid;grid-template-columns:1fr;gap:12px;align-items:start}
@media (min-width:640px){.hero,.duo{grid-template-columns:1.2fr 1fr}.grid{grid-template-columns:repeat(3,minmax(0,1fr))}h1{font-size:32px}}
`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow"><meta name="referrer" content="no-referrer">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>`;
}

export function renderSharePage(view: ShareViewDto): string {
  const d = view.deal;
  const recommendation = d.recommendation ? (RECOMMENDATION_LABEL[d.recommendation] ?? d.recommendation) : 'Not scored yet';
  const tone = d.recommendation ? (TONE[d.recommendation] ?? '') : '';
  const decision = d.decision
    ? `<div>Decision <span class="pill ${TONE[d.decision] ?? ''}">${esc(DECISION_LABEL[d.decision] ?? d.decision)}</span></div>`
    : '<div class="note">No decision recorded yet</div>';
  const warnings = d.warnings.length
    ? `<section class="card alert" role="alert" aria-label="Needs review"><div class="label">Needs review before relying on these figures</div>
<ul>${d.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></section>`
    : '';
  const score = d.health_score === null ? null : Math.round(d.health_score);
  const subtitle = [d.dba_name ? `DBA ${d.dba_name}` : null, d.industry, d.entity_type ? entityTypeLabel(d.entity_type) : null]
    .filter(Boolean)
    .join(' · ');
  const metric = (label: string, value: string) =>
    `<div class="card metric"><div class="label">${esc(label)}</div><div class="value">${esc(value)}</div></div>`;
  const reportDate = longDate(d.report_date);
  const expires = longDate(view.expires_at);
  return page(
    `${d.business_name}: underwriting summary`,
    `<header><div class="wrap"><div class="brand">Underwriting summary</div>
<h1>${esc(d.business_name)}</h1>${subtitle ? `<div class="sub">${esc(subtitle)}</div>` : ''}</div></header>
<main class="wrap">
${warnings}<section class="hero">
<div class="card score" aria-label="Health score">
<div class="ring" style="--p:${score ?? 0}"><span>${score ?? '—'}</span></div>
<div><div class="label">Health score</div><div class="big">${score === null ? 'Not scored yet' : `${score} / 100`}</div>
<div>Paper grade <strong>${esc(d.paper_grade ?? '—')}</strong></div></div></div>
<div class="card"><div class="label">Recommendation</div><div style="margin:6px 0 8px"><span class="pill ${tone}">${esc(recommendation)}</span></div>
${decision}
<div>Requested <strong>${esc(usd(d.funding_amount_requested))}</strong></div>
<div>Max advance <strong>${esc(usd(d.max_advance))}</strong></div></div>
</section>
<section class="grid" aria-label="Key figures">
${metric('Avg monthly deposits', usd(d.avg_monthly_deposits))}
${metric('Avg daily balance', usd(d.avg_daily_balance))}
${metric('Ending balance', usd(d.ending_balance))}
${metric('Total deposits', usd(d.total_deposits))}
${metric('Months covered', d.months_covered === null ? '—' : String(d.months_covered))}
${metric('NSF fees', d.nsf_count === null ? '—' : String(d.nsf_count))}
</section>
${d.ai_summary ? `<h2>Summary</h2><div class="card summary">${esc(d.ai_summary)}</div>` : ''}
${transfersAndAffordability(d.own_transfers, d.affordability)}
${positionsSection(d.lender_positions)}
${revenueSection(d.revenue)}
</main>
<footer>${reportDate ? `Report of ${esc(reportDate)} · ` : ''}Read-only link${expires ? ` · expires ${esc(expires)}` : ''}</footer>`,
  );
}

export function renderPasswordPage(opts: { wrong: boolean }): string {
  return page(
    'Protected underwriting summary',
    `<header><div class="wrap"><div class="brand">Underwriting summary</div><h1>This link is protected</h1>
<div class="sub">Enter the password you were given to see the summary.</div></div></header>
<main class="wrap"><div class="card">
${opts.wrong ? '<p class="error" role="alert">That password is not right. Try again.</p>' : ''}
<form method="post" autocomplete="off"><label class="label" for="password">Password</label>
<input id="password" name="password" type="password" required autofocus>
<button type="submit">View summary</button></form></div></main>`,
  );
}

export function renderNotFoundPage(): string {
  return page(
    'Link not available',
    `<header><div class="wrap"><div class="brand">Underwriting summary</div><h1>This link is not available</h1>
<div class="sub">It may have expired or been revoked. Ask the sender for a new link.</div></div></header>`,
  );
}
