/**
 * Ledgerlens statements CLI.
 *   statements parse FILE [--json] [--hint bank_statement|tax_return|profit_and_loss|other] [--no-ocr]
 *                         [--llm-model MODEL] [--llm-base-url URL]   (LLM parser used when GROQ_API_KEY is set)
 *   statements analyze ...  (delegates to runAnalyze from ./analyze)
 * Exit codes: 0 ok, 1 usage, 2 the file could not be processed (typed error printed).
 */
import * as fs from 'fs';
import * as path from 'path';
import {
  DocumentType,
  errorToApiJson,
  parseStatementFile,
  ParseResult,
  shutdownOcr,
  StatementError,
  toApiJson,
} from '@ledgerlens/statements';

const PARSE_USAGE = `usage: statements parse FILE [--json] [--hint TYPE] [--no-ocr] [--llm-model MODEL] [--llm-base-url URL]

Reads one statement (PDF, PNG, JPG or TIFF) and prints what Ledgerlens extracts: bank, holder,
account, period, balances, transactions, reconciliation, review reasons and tamper risk.
  --json          the API's JSON shape instead of the human summary
  --hint TYPE     bank_statement | tax_return | profit_and_loss | other (skip classification)
  --no-ocr        do not OCR scanned pages
  --llm-model M   with GROQ_API_KEY: let the LLM parser read layouts the rule parser cannot
Exit codes: 0 ok, 1 usage, 2 the file could not be read or parsed.`;

const USAGE = `usage:
  statements parse FILE [--json] [--hint TYPE] [--no-ocr] [--llm-model MODEL] [--llm-base-url URL]
  statements analyze FILE... --funding N [--as-of YYYY-MM-DD] [--json]
Run \`statements <command> --help\` for a command's options.`;

const DOC_TYPES: DocumentType[] = ['bank_statement', 'tax_return', 'profit_and_loss', 'other'];

function opt(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function human(r: ParseResult, file: string): string {
  const lines = [
    `${path.basename(file)}: ${r.documentType} (confidence ${r.classificationConfidence}), ${r.pageCount} page(s), ${r.extractionMethod} (${r.extractionConfidence})`,
    `bank: ${r.bankName ?? '-'} | holder: ${r.accountHolder ?? '-'} | account: ...${r.accountNumberLast4 ?? '----'} ${r.accountType ?? ''}`,
    `period: ${r.periodStart ?? '?'} .. ${r.periodEnd ?? '?'} | currency ${r.currency ?? '?'} | opening ${r.openingBalance ?? '?'} | closing ${r.closingBalance ?? '?'}`,
    `transactions: ${r.transactions.length} | reconciled: ${r.reconciliation.reconciled} (difference ${r.reconciliation.difference ?? '-'}, first broken row ${r.reconciliation.firstBrokenRow ?? '-'}, confidence ${r.reconciliation.confidence})`,
    r.needsReview ? `NEEDS REVIEW: ${r.reviewReasons.join('; ')}` : `needs review: no`,
    `risk: ${r.pdfRiskLevel}${r.riskReasons.length ? ` (${r.riskReasons.join('; ')})` : ''} | parser: ${r.parser.method}${r.parser.fallbackReason ? ` (${r.parser.fallbackReason})` : ''}`,
  ];
  for (const t of r.transactions.slice(0, 50))
    lines.push(
      `  ${t.date}  ${t.amount.toFixed(2).padStart(12)}  ${t.balance === null ? ''.padStart(12) : t.balance.toFixed(2).padStart(12)}  ${t.description}`,
    );
  if (r.transactions.length > 50) lines.push(`  ... ${r.transactions.length - 50} more (use --json)`);
  for (const c of r.readings ?? []) lines.push(`reading: ${c.question} -> ${c.chosen} (confidence ${c.confidence}; ${c.evidence})`);
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  return lines.join('\n');
}

export async function runParse(args: string[]): Promise<number> {
  const file = args.find((a, i) => !a.startsWith('--') && !['--hint', '--llm-model', '--llm-base-url'].includes(args[i - 1]));
  const json = args.includes('--json');
  if (!file) {
    console.error(USAGE);
    return 1;
  }
  const hint = opt(args, '--hint') as DocumentType | undefined;
  if (hint && !DOC_TYPES.includes(hint)) {
    console.error(`--hint must be one of ${DOC_TYPES.join(', ')}`);
    return 1;
  }
  const fail = (e: unknown) => {
    const body = errorToApiJson(e);
    if (json) process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    else console.error(`error (${(body.error as { code: string }).code}): ${(body.error as { message: string }).message}`);
    return 2;
  };
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    return fail(new StatementError('corrupt', `cannot read ${file}: ${(e as Error).message}`));
  }
  const apiKey = process.env.GROQ_API_KEY;
  const model = opt(args, '--llm-model') ?? process.env.GROQ_MODEL;
  try {
    const r = await parseStatementFile(bytes, {
      filename: path.basename(file),
      documentTypeHint: hint,
      ocr: !args.includes('--no-ocr'),
      llm: apiKey && model ? { apiKey, model, baseURL: opt(args, '--llm-base-url') ?? process.env.GROQ_BASE_URL } : undefined,
    });
    process.stdout.write(json ? `${JSON.stringify(toApiJson(r), null, 2)}\n` : `${human(r, file)}\n`);
    return 0;
  } catch (e) {
    if (!(e instanceof StatementError) && !json) console.error(e);
    return fail(e);
  }
}

async function runAnalyzeCommand(args: string[]): Promise<number> {
  let mod: { runAnalyze?: (argv: string[]) => Promise<number | void> | number | void } | null = null;
  try {
    // resolved at run time: tools/cli/analyze.ts is owned by another module and may not exist yet
    mod = require(path.join(__dirname, 'analyze'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !String((e as Error).message).includes('analyze')) throw e;
  }
  if (!mod || typeof mod.runAnalyze !== 'function') {
    console.error('error: the "analyze" command is not available in this build (tools/cli/analyze.ts with runAnalyze(argv) not found)');
    return 1;
  }
  const code = await mod.runAnalyze(args);
  return typeof code === 'number' ? code : 0;
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (cmd === 'parse' && (rest.includes('--help') || rest.includes('-h'))) {
    console.log(PARSE_USAGE);
    return 0;
  }
  if (cmd === 'parse') return runParse(rest);
  if (cmd === 'analyze') return runAnalyzeCommand(rest);
  console.error(USAGE);
  return 1;
}

if (require.main === module) {
  main(process.argv.slice(2))
    .then(async (code) => {
      await shutdownOcr();
      process.exit(code);
    })
    .catch(async (e) => {
      console.error(e);
      await shutdownOcr();
      process.exit(2);
    });
}
