import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { ll, queryClient, type Schemas } from '../api';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TableWrap } from '../components/TableWrap';
import { label, when } from '../format';
import { CrmPanel, UsagePanel, WebhooksPanel } from './SettingsIntegrations';

type Role = Schemas['InviteUserDto']['role'];
const ROLES: Role[] = ['admin', 'manager', 'underwriter', 'reviewer'];
const usersKey = ['users'] as const;
const keysKey = ['api-keys'] as const;

/** A secret the server shows once (a first password, a new key): shown here with a warning, never stored by the app. */
function ShownOnce({ title, secret, onClose }: { title: string; secret: string | null; onClose: () => void }) {
  return (
    <Dialog open={secret !== null} onClose={onClose} title={title}>
      <p>Shown this once: copy it now and pass it on safely. The server keeps only a hash.</p>
      <p>
        <code className="secret" data-testid="secret">
          {secret}
        </code>
      </p>
      <div className="actions">
        <button type="button" className="primary" onClick={onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}

/** Admin settings: the organization's users and roles, API keys, the webhook, CRM connections, usage and quota. */
export function SettingsPage() {
  return (
    <section aria-labelledby="settings-title" className="settings">
      <div className="page-head">
        <h1 id="settings-title">Settings</h1>
      </div>
      <UsersPanel />
      <KeysPanel />
      <WebhooksPanel />
      <CrmPanel />
      <UsagePanel />
    </section>
  );
}

function UsersPanel() {
  const users = useQuery({ queryKey: usersKey, queryFn: ({ signal }) => ll.users.list({ per_page: 100 }, { signal }) });
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('underwriter');
  const [password, setPassword] = useState<string | null>(null);
  const invite = useMutation({
    mutationFn: () => ll.users.invite({ email: email.trim(), role, ...(name.trim() ? { name: name.trim() } : {}) }),
    onSuccess: async (invited) => {
      setPassword(invited.temporary_password);
      setEmail('');
      setName('');
      await queryClient.invalidateQueries({ queryKey: usersKey });
    },
  });
  const change = useMutation({
    mutationFn: ({ id, next }: { id: number; next: Role }) => ll.users.update(id, { role: next }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: usersKey }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.mutate();
  };
  return (
    <section className="panel" aria-labelledby="users-title">
      <h2 id="users-title">Users and roles</h2>
      {users.isError ? <ErrorNotice error={users.error} /> : null}
      {change.isError ? <ErrorNotice error={change.error} action="change the role" /> : null}
      <TableWrap label="Users">
        <table className="dense">
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Role</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            {(users.data?.data ?? []).map((u) => (
              <tr key={u.id} data-user-id={u.id}>
                <th scope="row">
                  {u.name ?? u.email}
                  {u.name ? <span className="muted sub">{u.email}</span> : null}
                </th>
                <td>
                  <select
                    aria-label={`Role of ${u.email}`}
                    value={u.role}
                    disabled={change.isPending}
                    onChange={(e) => change.mutate({ id: u.id, next: e.target.value as Role })}
                  >
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {label(r)}
                      </option>
                    ))}
                  </select>
                </td>
                <td className="nowrap">{when(u.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <form className="inline-form" aria-label="Invite a user" onSubmit={submit}>
        <label>
          Email
          <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Name (optional)
          <input value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {label(r)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary" disabled={!email.includes('@') || invite.isPending}>
          Invite
        </button>
      </form>
      {invite.isError ? <ErrorNotice error={invite.error} action="invite the user" /> : null}
      <ShownOnce title="First password" secret={password} onClose={() => setPassword(null)} />
    </section>
  );
}

function KeysPanel() {
  const keys = useQuery({ queryKey: keysKey, queryFn: ({ signal }) => ll.keys.list({ per_page: 100 }, { signal }) });
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const done = async (key: { key: string }) => {
    setSecret(key.key);
    await queryClient.invalidateQueries({ queryKey: keysKey });
  };
  const create = useMutation({
    mutationFn: () => ll.keys.create({ name: name.trim() }),
    onSuccess: async (key) => {
      setName('');
      await done(key);
    },
  });
  const rotate = useMutation({ mutationFn: (id: number) => ll.keys.rotate(id), onSuccess: done });
  const revoke = useMutation({
    mutationFn: (id: number) => ll.keys.revoke(id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keysKey }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const error = create.error ?? rotate.error ?? revoke.error;
  return (
    <section className="panel" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      {keys.isError ? <ErrorNotice error={keys.error} /> : null}
      {error ? <ErrorNotice error={error} action="change the key" /> : null}
      <TableWrap label="API keys">
        <table className="dense">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Scopes</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(keys.data?.data ?? []).map((k) => (
              <tr key={k.id} data-key-id={k.id}>
                <th scope="row">{k.name}</th>
                <td>
                  <code>{k.key_masked}</code>
                </td>
                <td>{k.scopes.join(', ')}</td>
                <td className="nowrap">{when(k.last_used_at)}</td>
                <td className="nowrap">
                  <div className="actions-cell">
                    <button type="button" onClick={() => rotate.mutate(k.id)} disabled={rotate.isPending}>
                      Rotate
                    </button>
                    <button type="button" className="danger" onClick={() => revoke.mutate(k.id)} disabled={revoke.isPending}>
                      Revoke
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <form className="inline-form" aria-label="Create an API key" onSubmit={submit}>
        <label>
          Key name
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <button type="submit" className="primary" disabled={!name.trim() || create.isPending}>
          Create key
        </button>
      </form>
      <ShownOnce title="New API key" secret={secret} onClose={() => setSecret(null)} />
    </section>
  );
}
