import { useRef, useState, type DragEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { keys, ll, queryClient, type DocumentStatus } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { label } from '../format';

/** The steps a statement goes through, in order (OCR only for scans). */
const STEPS = ['uploaded', 'classifying', 'extracting_text', 'running_ocr', 'parsing_with_llm', 'computing_metrics', 'completed'];
const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'not_found']);

interface Tracked {
  key: string;
  filename: string;
  /** Set once the API accepted the file. */
  id: number | null;
  /** Refused at upload: the API's reason. */
  error: string | null;
}

/**
 * Drag and drop several statements (or choose them): one bulk upload, then each file's progress
 * through the pipeline, asked for all files at once while any is in flight. The deal page follows
 * the report over the event stream.
 */
export function Upload({ dealId }: { dealId: number }) {
  const [tracked, setTracked] = useState<Tracked[]>([]);
  const [over, setOver] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const input = useRef<HTMLInputElement>(null);

  const ids = tracked.flatMap((t) => (t.id === null ? [] : [t.id]));
  const statuses = useQuery({
    queryKey: ['batch-status', dealId, ids],
    queryFn: async ({ signal }) => {
      const result = await ll.documents.batchStatus(ids, { signal });
      if (result.documents.every((d) => TERMINAL.has(d.status))) {
        void queryClient.invalidateQueries({ queryKey: keys.deal(dealId) });
        void queryClient.invalidateQueries({ queryKey: keys.documents(dealId) });
      }
      return result;
    },
    enabled: ids.length > 0,
    refetchInterval: (q) => (q.state.data?.documents.every((d) => TERMINAL.has(d.status)) ? false : 700),
  });
  const statusOf = new Map(statuses.data?.documents.map((d) => [d.id, d]) ?? []);

  const send = async (files: File[]) => {
    if (files.length === 0) return;
    setFailure(null);
    const batch = files.map((f, i) => ({ key: `${Date.now()}-${i}-${f.name}`, filename: f.name, id: null, error: null }) as Tracked);
    setTracked((prev) => [...batch, ...prev]);
    try {
      const result = await ll.documents.uploadMany(dealId, files);
      const uploaded = new Map(result.uploaded.map((u) => [u.filename, u.id]));
      const refused = new Map(result.errors.map((e) => [e.filename, e.detail]));
      setTracked((prev) =>
        prev.map((t) =>
          batch.some((b) => b.key === t.key) ? { ...t, id: uploaded.get(t.filename) ?? null, error: refused.get(t.filename) ?? null } : t,
        ),
      );
      void queryClient.invalidateQueries({ queryKey: keys.deal(dealId) });
    } catch (err) {
      setFailure(err);
      setTracked((prev) => prev.filter((t) => !batch.some((b) => b.key === t.key)));
    }
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    void send([...e.dataTransfer.files]);
  };

  return (
    <section className="panel upload" aria-labelledby="upload-title">
      <h2 id="upload-title">Statements</h2>
      <div
        className={`dropzone${over ? ' over' : ''}`}
        data-testid="dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <p>
          <strong>Drop bank statements here</strong> (PDF or images, several at once)
        </p>
        <button type="button" onClick={() => input.current?.click()}>
          Choose files
        </button>
        <input
          ref={input}
          type="file"
          multiple
          accept="application/pdf,image/png,image/jpeg,image/tiff"
          className="visually-hidden"
          aria-label="Choose statement files"
          tabIndex={-1}
          onChange={(e) => {
            void send([...(e.target.files ?? [])]);
            e.target.value = '';
          }}
        />
      </div>
      {failure ? <ErrorNotice error={failure} action="upload" /> : null}
      {tracked.length > 0 && (
        <ul className="progress-list" aria-label="Uploads">
          {tracked.map((t) => (
            <FileProgress key={t.key} item={t} status={t.id === null ? undefined : statusOf.get(t.id)} />
          ))}
        </ul>
      )}
    </section>
  );
}

function FileProgress({ item, status }: { item: Tracked; status: DocumentStatus | { status: string; error?: string | null } | undefined }) {
  const state = item.error ? 'failed' : item.id === null ? 'uploading' : (status?.status ?? 'uploaded');
  const step = STEPS.indexOf(state);
  const fraction = state === 'completed' ? 1 : state === 'uploading' ? 0.05 : step >= 0 ? (step + 0.5) / STEPS.length : 1;
  const reason = item.error ?? (status && 'error' in status ? status.error : null);
  return (
    <li className={`file file-${state}`} data-filename={item.filename}>
      <span className="file-name">{item.filename}</span>
      <span className="file-state" aria-live="polite">
        {state === 'uploading' ? 'Uploading…' : label(state)}
        {reason ? `: ${reason}` : ''}
      </span>
      <progress max={100} value={Math.round(fraction * 100)} aria-label={`${item.filename}: ${label(state)}`} />
    </li>
  );
}
