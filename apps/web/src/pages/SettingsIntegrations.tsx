/**
 * Settings for the systems Ledgerlens talks to: the webhook (configuration, test, delivery log
 * with redeliver), the CRM connections with their sync runs, and this month's usage and quota.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { LedgerlensError, type CrmProvider } from '@ledgerlens/sdk';
import { ll, queryClient, type Schemas } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { Pager } from '../components/Pager';
import { TableWrap } from '../components/TableWrap';
import { label, num, when } from '../format';

const webhookKey = ['webhook-config'] as const;
const deliveriesKey = (page: number) => ['webhook-deliveries', page] as const;
type EventName = Schemas['WebhookConfigInputDto']['events'][number];
/**
 * The events a receiver may subscribe to, as the API's schema names them (importing the SDK's
 * EVENT_TYPES list here pulled ~270 KB into the app's first bundle). The check below fails the
 * build when the API gains an event this list lacks.
 */
const SUBSCRIBABLE = [
  'deal.created',
  'deal.updated',
  'deal.ready',
  'deal.decision',
  'document.uploaded',
  'document.completed',
  'document.failed',
  'batch.completed',
  'recommendation.generated',
  'export.ready',
  'notification.created',
] as const satisfies readonly EventName[];
type Unlisted = Exclude<EventName, (typeof SUBSCRIBABLE)[number] | 'webhook.test'>;
export const everyEventListed: [Unlisted] extends [never] ? true : Unlisted = true;

/** A new signing secret, made in the browser (the server stores it sealed and never shows it again). */
function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** 404 is "not configured yet", not an error to show. */
const notFound = (e: unknown) => e instanceof LedgerlensError && e.status === 404;

export function WebhooksPanel() {
  const config = useQuery({
    queryKey: webhookKey,
    queryFn: async ({ signal }) => {
      try {
        return await ll.webhooks.getConfig({ signal });
      } catch (e) {
        if (notFound(e)) return null;
        throw e;
      }
    },
  });
  const [editing, setEditing] = useState(false);
  const current = config.data ?? null;
  return (
    <section className="panel" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhook</h2>
      {config.isError ? <ErrorNotice error={config.error} /> : null}
      {config.isPending ? <p className="muted">Loading…</p> : null}
      {!config.isPending && !editing ? (
        current ? (
          <dl className="grid-kv">
            <div>
              <dt>Receiver</dt>
              <dd data-testid="webhook-url" className="wrap-anywhere">
                {current.url}
              </dd>
            </div>
            <div>
              <dt>State</dt>
              <dd>{current.enabled ? 'Sending' : 'Paused'}</dd>
            </div>
            <div>
              <dt>Events</dt>
              <dd>{current.events.join(', ')}</dd>
            </div>
            <div>
              <dt>Updated</dt>
              <dd>{when(current.updated_at)}</dd>
            </div>
          </dl>
        ) : (
          <p className="muted">No webhook yet: Ledgerlens sends nothing until a receiver is set.</p>
        )
      ) : null}
      {editing ? (
        <WebhookForm current={current} onDone={() => setEditing(false)} />
      ) : (
        <div className="actions">
          <button type="button" onClick={() => setEditing(true)}>
            {current ? 'Change' : 'Set a receiver'}
          </button>
          {current ? <WebhookTest /> : null}
        </div>
      )}
      {current ? <Deliveries /> : null}
    </section>
  );
}

function WebhookForm({ current, onDone }: { current: { url: string; events: string[]; enabled: boolean } | null; onDone: () => void }) {
  const [url, setUrl] = useState(current?.url ?? '');
  const [secret, setSecret] = useState('');
  const [events, setEvents] = useState<EventName[]>((current?.events as EventName[] | undefined) ?? ['deal.ready', 'deal.decision']);
  const [enabled, setEnabled] = useState(current?.enabled ?? true);
  const save = useMutation({
    mutationFn: () => ll.webhooks.setConfig({ url: url.trim(), secret, events, enabled }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: webhookKey });
      onDone();
    },
  });
  const toggle = (t: EventName) => setEvents((e) => (e.includes(t) ? e.filter((x) => x !== t) : [...e, t]));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} className="stack" aria-label="Webhook receiver">
      <label>
        Receiver URL (HTTPS)
        <input
          type="url"
          required
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://example.com/hooks/ledgerlens"
        />
      </label>
      <label>
        Signing secret
        <span className="inline-row">
          <input type="text" required minLength={8} value={secret} onChange={(e) => setSecret(e.target.value)} autoComplete="off" />
          <button type="button" onClick={() => setSecret(newSecret())}>
            Generate
          </button>
        </span>
        <span className="muted small">Give the same secret to your receiver: it verifies each request’s signature with it.</span>
      </label>
      <fieldset>
        <legend>Events</legend>
        <div className="event-checks">
          {SUBSCRIBABLE.map((t) => (
            <label key={t} className="check">
              <input type="checkbox" checked={events.includes(t)} onChange={() => toggle(t)} /> {t}
            </label>
          ))}
        </div>
      </fieldset>
      <label className="check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Send events
      </label>
      {save.isError ? <ErrorNotice error={save.error} /> : null}
      <div className="actions">
        <button type="button" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={save.isPending || events.length === 0}>
          Save
        </button>
      </div>
    </form>
  );
}

function WebhookTest() {
  const test = useMutation({
    mutationFn: () => ll.webhooks.test(),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['webhook-deliveries'] }),
  });
  return (
    <>
      <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
        Send a test event
      </button>
      {test.data ? (
        <span role="status" className={test.data.status === 'delivered' ? 'ok' : 'flagged'}>
          Test {test.data.status}
          {test.data.response_status ? `: HTTP ${test.data.response_status}` : ''}
          {test.data.response_time_ms !== null && test.data.response_time_ms !== undefined ? ` in ${test.data.response_time_ms} ms` : ''}
          {test.data.error ? ` (${test.data.error})` : ''}
        </span>
      ) : null}
      {test.isError ? <ErrorNotice error={test.error} /> : null}
    </>
  );
}

function Deliveries() {
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: deliveriesKey(page),
    queryFn: ({ signal }) => ll.webhooks.deliveries({ page, per_page: 10 }, { signal }),
  });
  const redeliver = useMutation({
    mutationFn: (id: string) => ll.webhooks.redeliver(id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['webhook-deliveries'] }),
  });
  return (
    <>
      <h3>Deliveries</h3>
      {list.isError ? <ErrorNotice error={list.error} /> : null}
      {redeliver.isError ? <ErrorNotice error={redeliver.error} /> : null}
      {list.data && list.data.data.length === 0 ? <p className="muted">Nothing sent yet.</p> : null}
      {list.data && list.data.data.length > 0 ? (
        <TableWrap label="Webhook deliveries">
          <table className="dense">
            <thead>
              <tr>
                <th scope="col">Sent</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  HTTP
                </th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col">
                  <span className="visually-hidden">Redeliver</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((d) => (
                <tr key={d.id}>
                  <td className="nowrap">{when(d.created_at)}</td>
                  <td>
                    {d.event_type}
                    {d.redelivery_of ? <span className="muted"> (redelivery)</span> : null}
                  </td>
                  <td>
                    <span className={`badge severity-${d.status === 'delivered' ? 'info' : d.status === 'failed' ? 'error' : 'warning'}`}>
                      {label(d.status)}
                    </span>
                  </td>
                  <td className="num">{d.response_status ?? '—'}</td>
                  <td className="num">
                    {d.attempt_number}/{d.max_attempts}
                  </td>
                  <td>
                    {d.status === 'failed' ? (
                      <button type="button" onClick={() => redeliver.mutate(d.id)} disabled={redeliver.isPending}>
                        Redeliver
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      <Pager page={page} totalPages={list.data?.meta.total_pages} onPage={setPage} />
    </>
  );
}

/** The credentials each CRM takes, as the server's adapters read them. */
const CRM_FIELDS: Record<Exclude<CrmProvider, 'custom'>, { name: string; label: string; optional?: boolean; secret?: boolean }[]> = {
  salesforce: [
    { name: 'instance_url', label: 'Instance URL' },
    { name: 'client_id', label: 'Client id' },
    { name: 'client_secret', label: 'Client secret', secret: true },
    { name: 'refresh_token', label: 'Refresh token', secret: true },
  ],
  hubspot: [
    { name: 'access_token', label: 'Private app access token', secret: true },
    { name: 'client_secret', label: 'App client secret (signed inbound webhooks)', optional: true, secret: true },
    { name: 'base_url', label: 'API base URL', optional: true },
  ],
  pipedrive: [
    { name: 'api_token', label: 'API token', secret: true },
    { name: 'base_url', label: 'Company URL (https://<company>.pipedrive.com)', optional: true },
  ],
};
const PROVIDERS = Object.keys(CRM_FIELDS) as (keyof typeof CRM_FIELDS)[];
const crmKey = (p: CrmProvider) => ['crm-config', p] as const;

export function CrmPanel() {
  const [page, setPage] = useState(1);
  const runs = useQuery({
    queryKey: ['crm-runs', page],
    queryFn: ({ signal }) => ll.crm.runs({ page, per_page: 10 }, { signal }),
    // a run in progress is followed until it ends
    refetchInterval: (q) => (q.state.data?.data.some((r) => r.status === 'running') ? 1000 : false),
  });
  // a run that ends moves the connections' "last sync"
  const ended = runs.data?.data.filter((r) => r.status !== 'running').length ?? 0;
  useEffect(() => {
    void queryClient.invalidateQueries({ queryKey: ['crm-config'] });
  }, [ended]);
  return (
    <section className="panel" aria-labelledby="crm-title">
      <h2 id="crm-title">CRM connections</h2>
      <div className="crm-grid">
        {PROVIDERS.map((p) => (
          <CrmProviderCard key={p} provider={p} />
        ))}
      </div>
      <h3>Sync runs</h3>
      {runs.isError ? <ErrorNotice error={runs.error} /> : null}
      {runs.data && runs.data.data.length === 0 ? <p className="muted">No sync has run yet.</p> : null}
      {runs.data && runs.data.data.length > 0 ? (
        <TableWrap label="CRM sync runs">
          <table className="dense">
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">CRM</th>
                <th scope="col">Trigger</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Synced
                </th>
                <th scope="col" className="num">
                  Failed
                </th>
                <th scope="col" className="num">
                  Time
                </th>
              </tr>
            </thead>
            <tbody>
              {runs.data.data.map((r) => (
                <tr key={r.id}>
                  <td className="nowrap">{when(r.started_at)}</td>
                  <td>{r.provider ? label(r.provider) : 'All connected'}</td>
                  <td>
                    {label(r.trigger)}
                    {r.deal_id ? <span className="muted"> (deal {r.deal_id})</span> : null}
                  </td>
                  <td>{label(r.status)}</td>
                  <td className="num">{r.records_synced}</td>
                  <td className={`num${r.records_failed ? ' flagged' : ''}`}>{r.records_failed}</td>
                  <td className="num">{r.duration_ms === null || r.duration_ms === undefined ? '—' : `${num(r.duration_ms / 1000)} s`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      <Pager page={page} totalPages={runs.data?.meta.total_pages} onPage={setPage} />
    </section>
  );
}

function CrmProviderCard({ provider }: { provider: keyof typeof CRM_FIELDS }) {
  const config = useQuery({ queryKey: crmKey(provider), queryFn: ({ signal }) => ll.crm.getProvider(provider, { signal }) });
  const [editing, setEditing] = useState(false);
  const refresh = () =>
    Promise.all([queryClient.invalidateQueries({ queryKey: crmKey(provider) }), queryClient.invalidateQueries({ queryKey: ['crm-runs'] })]);
  const sync = useMutation({ mutationFn: () => ll.crm.sync(), onSettled: refresh });
  const test = useMutation({ mutationFn: () => ll.crm.testProvider(provider) });
  const remove = useMutation({ mutationFn: () => ll.crm.deleteProvider(provider), onSettled: refresh });
  const c = config.data;
  const titleId = `crm-${provider}`;
  return (
    <section className="crm-card" aria-labelledby={titleId}>
      <h3 id={titleId}>
        {label(provider)}{' '}
        <span className={`badge ${c?.enabled && c.has_credentials ? 'risk-low' : 'status-new'}`}>
          {c?.enabled && c.has_credentials ? 'Connected' : 'Not connected'}
        </span>
      </h3>
      {config.isError ? <ErrorNotice error={config.error} /> : null}
      {c?.has_credentials ? (
        <p className="muted small">
          Last sync {when(c.last_sync_at)}
          {c.last_sync_status ? ` (${label(c.last_sync_status)})` : ''}; every {c.sync_interval_minutes} min
        </p>
      ) : null}
      {editing ? (
        <CrmForm
          provider={provider}
          interval={c?.sync_interval_minutes ?? 60}
          onDone={() => {
            setEditing(false);
            void refresh();
          }}
        />
      ) : (
        <div className="actions">
          <button type="button" onClick={() => setEditing(true)}>
            {c?.has_credentials ? 'Change' : 'Connect'}
          </button>
          {c?.has_credentials ? (
            <>
              <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
                Test
              </button>
              <button type="button" onClick={() => sync.mutate()} disabled={sync.isPending || !c.enabled}>
                Sync now
              </button>
              <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
                Disconnect
              </button>
            </>
          ) : null}
        </div>
      )}
      {test.data ? (
        <p role="status" className={test.data.success ? 'ok' : 'flagged'}>
          {test.data.message}
        </p>
      ) : null}
      {sync.data ? (
        <p role="status">
          {sync.data.data
            ? `Sync started: ${sync.data.data.records_queued} deal${sync.data.data.records_queued === 1 ? '' : 's'} queued`
            : `Sync ${label(sync.data.status)}`}
        </p>
      ) : null}
      {[test.error, sync.error, remove.error].map((e, i) => (e ? <ErrorNotice key={i} error={e} /> : null))}
    </section>
  );
}

function CrmForm({ provider, interval, onDone }: { provider: keyof typeof CRM_FIELDS; interval: number; onDone: () => void }) {
  const fields = CRM_FIELDS[provider];
  const [values, setValues] = useState<Record<string, string>>({});
  const [minutes, setMinutes] = useState(String(interval));
  // saved, then tested with the CRM itself: the form stays open until the CRM accepts them
  const save = useMutation({
    mutationFn: async () => {
      await ll.crm.setProvider(provider, {
        enabled: true,
        sync_interval_minutes: Number(minutes),
        credentials: Object.fromEntries(Object.entries(values).filter(([, v]) => v.trim() !== '')),
      });
      const test = await ll.crm.testProvider(provider);
      if (!test.success) throw new Error(`${label(provider)} refused the connection: ${test.message}`);
    },
    onSuccess: onDone,
    onSettled: () => queryClient.invalidateQueries({ queryKey: crmKey(provider) }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} className="stack" aria-label={`${label(provider)} credentials`}>
      {fields.map((f) => (
        <label key={f.name}>
          {f.label}
          {f.optional ? <span className="muted"> (optional)</span> : null}
          <input
            type={f.secret ? 'password' : 'text'}
            required={!f.optional}
            autoComplete="off"
            value={values[f.name] ?? ''}
            onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))}
          />
        </label>
      ))}
      <label>
        Sync every (minutes)
        <input type="number" min={5} max={1440} required value={minutes} onChange={(e) => setMinutes(e.target.value)} />
      </label>
      <p className="muted small">Saved, then tested with the CRM; credentials are stored sealed and never shown again.</p>
      {save.isError ? <ErrorNotice error={save.error} /> : null}
      <div className="actions">
        <button type="button" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={save.isPending}>
          Save and test
        </button>
      </div>
    </form>
  );
}

export function UsagePanel() {
  const usage = useQuery({ queryKey: ['usage'], queryFn: ({ signal }) => ll.usage.me({ signal }) });
  const u = usage.data;
  return (
    <section className="panel" aria-labelledby="usage-title">
      <h2 id="usage-title">Usage and quota</h2>
      {usage.isError ? <ErrorNotice error={usage.error} /> : null}
      {u ? (
        <>
          <p>
            Plan <strong>{label(u.plan)}</strong>, {u.period}
            {u.quota_exceeded ? (
              <span className="badge risk-high" role="status">
                {' '}
                Quota exceeded
              </span>
            ) : null}
          </p>
          <ul className="factors usage-meters">
            {(
              [
                ['API requests', u.requests],
                ['Documents', u.documents],
              ] as const
            ).map(([name, c]) => (
              <li key={name}>
                <span>{name}</span>
                {c.limit ? (
                  <meter min={0} max={c.limit} value={c.used} aria-label={`${name} used`} />
                ) : (
                  <span className="muted">no limit</span>
                )}
                <span className="num nowrap">
                  {num(c.used)}
                  {c.limit ? ` / ${num(c.limit)}` : ''}
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
