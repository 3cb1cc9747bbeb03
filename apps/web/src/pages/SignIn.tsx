import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { keys, ll, queryClient } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';

export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useMutation({
    mutationFn: () => ll.session.signIn(email, password),
    onSuccess: (session) => queryClient.setQueryData(keys.session, session),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    signIn.mutate();
  };
  return (
    <main className="signin">
      <form className="signin-card" onSubmit={submit} aria-labelledby="signin-title">
        <div className="brand brand-large">
          <img src="/app/favicon.svg" alt="" width="28" height="28" />
          Ledgerlens
        </div>
        <h1 id="signin-title">Sign in</h1>
        <p className="muted">Underwriting workbench</p>
        <label>
          Email
          <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        {signIn.isError && <ErrorNotice error={signIn.error} />}
        <button type="submit" className="primary" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="hint">The first start of the server prints the demo admin’s email and password.</p>
      </form>
    </main>
  );
}
