import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import { keys, ll, queryClient, type Schemas } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { day, label, usdCents } from '../format';
import type { LoadedRows } from './RowsGrid';

export type Transaction = Schemas['TransactionDto'];
type Category = Transaction['category'];
type Kind = Transaction['transaction_type'];
const CATEGORIES: Category[] = ['revenue', 'non_revenue', 'debt_service', 'operating_expense', 'transfer', 'other'];

/** A calendar date YYYY-MM-DD (the API refuses any other, though a statement may print one). */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/**
 * After a saved change: the rows, the document, the deal (its report follows) and the pipeline.
 * The change is made in the cached rows at once (`change`), and the rows are read again in the
 * background (a statement of 10,000 rows takes seconds: the form does not wait for them).
 */
async function refresh(documentId: number, dealId: number, change: (rows: Transaction[]) => Transaction[]): Promise<void> {
  queryClient.setQueryData<LoadedRows>(keys.transactions(documentId), (prev) => {
    if (!prev) return prev;
    const rows = change(prev.rows);
    return { rows, total: prev.total + rows.length - prev.rows.length };
  });
  void queryClient.invalidateQueries({ queryKey: keys.transactions(documentId) });
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: keys.document(documentId) }),
    queryClient.invalidateQueries({ queryKey: keys.deal(dealId) }),
    queryClient.invalidateQueries({ queryKey: ['deals'] }),
    queryClient.invalidateQueries({ queryKey: ['review-queue'] }),
  ]);
}

/** A form of the review panel: Escape cancels, the reason is required, the API's refusal shows in place. */
function RowForm({
  title,
  onSubmit,
  onCancel,
  error,
  pending,
  valid,
  submitLabel,
  children,
}: {
  title: string;
  onSubmit: () => void;
  onCancel: () => void;
  error: unknown;
  pending: boolean;
  valid: boolean;
  submitLabel: string;
  children: ReactNode;
}) {
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit();
  };
  const onKey = (e: KeyboardEvent<HTMLFormElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onCancel();
    }
  };
  return (
    <form className="fix-row" aria-label={title} onSubmit={submit} onKeyDown={onKey}>
      <h3>{title}</h3>
      <div className="fields">{children}</div>
      {error ? <ErrorNotice error={error} action="save the change" /> : null}
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={!valid || pending}>
          {pending ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}

interface RowValues {
  date: string;
  amount: string;
  type: Kind;
  description: string;
  category: Category;
}

/** The fields of a row: date, amount, credit/debit, category, description. */
function RowFields({ v, set, focus }: { v: RowValues; set: (next: Partial<RowValues>) => void; focus?: boolean }) {
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focus) first.current?.focus();
  }, [focus]);
  return (
    <>
      <label>
        Date
        <input ref={first} type="date" required value={v.date} onChange={(e) => set({ date: e.target.value })} />
      </label>
      <label>
        Amount (USD)
        <input inputMode="decimal" required value={v.amount} onChange={(e) => set({ amount: e.target.value })} />
      </label>
      <label>
        Type
        <select value={v.type} onChange={(e) => set({ type: e.target.value as Kind })}>
          <option value="credit">Credit (money in)</option>
          <option value="debit">Debit (money out)</option>
        </select>
      </label>
      <label>
        Category
        <select value={v.category} onChange={(e) => set({ category: e.target.value as Category })}>
          {CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {label(c)}
            </option>
          ))}
        </select>
      </label>
      <label className="wide">
        Description
        <input required value={v.description} onChange={(e) => set({ description: e.target.value })} />
      </label>
    </>
  );
}

const signed = (v: RowValues) => (v.type === 'debit' ? -1 : 1) * Math.abs(Number(v.amount));
const validRow = (v: RowValues) =>
  isCalendarDate(v.date) &&
  v.amount.trim() !== '' &&
  Number.isFinite(Number(v.amount)) &&
  Number(v.amount) !== 0 &&
  v.description.trim() !== '';

function Reason({ value, onChange, focus }: { value: string; onChange: (v: string) => void; focus?: boolean }) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focus) ref.current?.focus();
  }, [focus]);
  return (
    <label className="wide">
      Reason (required)
      <input ref={ref} value={value} required onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

/**
 * The correction of a row: only the fields changed are sent, with the reason the API requires. The
 * amount being typed goes to `onDraft` at once, so the page checks the balance chain on it (`chain`
 * says whether it holds) before anything is saved.
 */
export function FixRow({
  t,
  dealId,
  chain,
  onDraft,
  onDone,
}: {
  t: Transaction;
  dealId: number;
  chain: string;
  onDraft: (draft: { id: number; amount: number } | null) => void;
  onDone: () => void;
}) {
  const [v, setV] = useState<RowValues>({
    date: t.date,
    amount: Math.abs(t.amount).toFixed(2),
    type: t.transaction_type,
    description: t.description,
    category: t.category,
  });
  useEffect(() => {
    const amount = signed(v);
    onDraft(Number.isFinite(amount) && v.amount.trim() !== '' && amount !== t.amount ? { id: t.id, amount } : null);
  }, [v.amount, v.type]);
  // closed any way (saved, cancelled, another row selected): the chain is the stored rows' again
  useEffect(() => () => onDraft(null), []);
  const [reason, setReason] = useState('');
  const save = useMutation({
    mutationFn: () => {
      const amount = signed(v);
      return ll.transactions.correct(t.document_id, t.id, {
        correction_reason: reason.trim(),
        ...(v.date !== t.date ? { date: v.date } : {}),
        ...(amount !== t.amount ? { amount } : {}),
        ...(v.type !== t.transaction_type ? { transaction_type: v.type } : {}),
        ...(v.description.trim() !== t.description ? { description: v.description.trim() } : {}),
        ...(v.category !== t.category ? { category: v.category } : {}),
      });
    },
    onSuccess: async (fixed) => {
      await refresh(t.document_id, dealId, (rows) => rows.map((r) => (r.id === fixed.id ? fixed : r)));
      onDone();
    },
  });
  return (
    <RowForm
      title={`Fix the row of ${day(t.date)}`}
      onSubmit={() => save.mutate()}
      onCancel={onDone}
      error={save.error}
      pending={save.isPending}
      valid={reason.trim().length > 0 && validRow(v)}
      submitLabel="Save correction"
    >
      <RowFields v={v} set={(next) => setV({ ...v, ...next })} focus />
      <p className="wide small chain-check" role="status" data-testid="chain-check">
        With this amount the running balance {chain}.
      </p>
      <Reason value={reason} onChange={setReason} />
    </RowForm>
  );
}

/** A row the reader missed, added after `after` (or first when there is none). */
export function AddRow({
  documentId,
  dealId,
  after,
  onDone,
}: {
  documentId: number;
  dealId: number;
  after: Transaction | null;
  onDone: (added?: Transaction) => void;
}) {
  const [v, setV] = useState<RowValues>({ date: after?.date ?? '', amount: '', type: 'credit', description: '', category: 'revenue' });
  const [reason, setReason] = useState('');
  const save = useMutation({
    mutationFn: () =>
      ll.transactions.add(documentId, {
        date: v.date,
        amount: signed(v),
        description: v.description.trim(),
        category: v.category,
        after_transaction_id: after?.id ?? null,
        correction_reason: reason.trim(),
      }),
    onSuccess: async (added) => {
      await refresh(documentId, dealId, (rows) => {
        const at = after ? rows.findIndex((r) => r.id === after.id) + 1 : 0;
        return [...rows.slice(0, at), added, ...rows.slice(at)];
      });
      onDone(added);
    },
  });
  return (
    <RowForm
      title={after ? `Add a missed row after ${day(after.date)} ${usdCents(after.amount)}` : 'Add a missed row before the first'}
      onSubmit={() => save.mutate()}
      onCancel={() => onDone()}
      error={save.error}
      pending={save.isPending}
      valid={reason.trim().length > 0 && validRow(v)}
      submitLabel="Add row"
    >
      <RowFields v={v} set={(next) => setV({ ...v, ...next })} focus />
      <Reason value={reason} onChange={setReason} />
    </RowForm>
  );
}

/** Deletes a row the reader invented or read twice; the reason goes to the trail, which keeps the row. */
export function DeleteRow({ t, dealId, onDone }: { t: Transaction; dealId: number; onDone: (deleted: boolean) => void }) {
  const [reason, setReason] = useState('');
  const save = useMutation({
    mutationFn: () => ll.transactions.delete(t.document_id, t.id, reason.trim()),
    onSuccess: async () => {
      await refresh(t.document_id, dealId, (rows) => rows.filter((r) => r.id !== t.id));
      onDone(true);
    },
  });
  return (
    <RowForm
      title={`Delete the row of ${day(t.date)}, ${usdCents(t.amount)}`}
      onSubmit={() => save.mutate()}
      onCancel={() => onDone(false)}
      error={save.error}
      pending={save.isPending}
      valid={reason.trim().length > 0}
      submitLabel="Delete row"
    >
      <p className="wide muted small">
        {t.description}. The audit trail keeps the row and your reason; a new reading of the file drops it again.
      </p>
      <Reason value={reason} onChange={setReason} focus />
    </RowForm>
  );
}
