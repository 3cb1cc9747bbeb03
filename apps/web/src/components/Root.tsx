import { useQuery, useMutation } from '@tanstack/react-query';
import { Link, Outlet } from '@tanstack/react-router';
import { LedgerlensError } from '@ledgerlens/sdk';
import { keys, ll, queryClient, type BrowserSession } from '../api';
import { useLiveEvents } from '../live';
import { SignIn } from '../pages/SignIn';
import { ErrorNotice } from './ErrorNotice';

/** Who is signed in: the session, or null when signed out (401). */
export function useSession() {
  return useQuery<BrowserSession | null>({
    queryKey: keys.session,
    queryFn: async () => {
      try {
        return await ll.session.get();
      } catch (err) {
        if (err instanceof LedgerlensError && err.status === 401) return null;
        throw err;
      }
    },
    staleTime: Infinity,
  });
}

export function Root() {
  const session = useSession();
  if (session.isPending) return <p className="splash">Loading…</p>;
  if (session.isError)
    return (
      <main className="signin">
        <ErrorNotice error={session.error} />
      </main>
    );
  if (!session.data) return <SignIn />;
  return <Shell session={session.data} />;
}

function Shell({ session }: { session: BrowserSession }) {
  const live = useLiveEvents(true);
  const signOut = useMutation({
    mutationFn: () => ll.session.signOut(),
    onSettled: () => {
      // signed out: the sign-in shows, and nothing of the session's data stays in memory
      queryClient.setQueryData(keys.session, null);
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== keys.session[0] });
    },
  });
  return (
    <>
      <header className="topbar">
        <Link to="/" search={{}} className="brand" aria-label="Ledgerlens: pipeline">
          <img src="/app/favicon.svg" alt="" width="22" height="22" />
          Ledgerlens
        </Link>
        <nav aria-label="Main">
          <Link to="/" search={{}} activeOptions={{ exact: true, includeSearch: false }}>
            Pipeline
          </Link>
          <Link to="/review">Review queue</Link>
          {session.scopes.includes('keys:manage') ? <Link to="/settings">Settings</Link> : null}
        </nav>
        <span className={`live live-${live}`} title="Updates arrive as they happen (event stream)">
          {live === 'offline' ? 'Offline' : 'Live'}
        </span>
        <span className="who">
          <span className="who-name">{session.user.name ?? session.user.email}</span>
          <span className="role">{session.user.role}</span>
          <span className="org">{session.user.organization_name}</span>
        </span>
        <button type="button" className="ghost" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Outlet />
      </main>
    </>
  );
}
