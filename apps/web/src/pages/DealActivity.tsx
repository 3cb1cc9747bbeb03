import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { ll, queryClient, type Schemas } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { when } from '../format';

type ShareLink = Schemas['ShareLinkDto'];
const timelineKey = (dealId: number) => ['timeline', dealId] as const;
const commentsKey = (dealId: number) => ['comments', dealId] as const;

/**
 * The deal's comments (a box to add one: `@name` or `@email` notifies a colleague) and its timeline
 * (uploads, readings, reviews, decisions with their reason and offer, assignments; newest first).
 */
export function TimelinePanel({ dealId, writer }: { dealId: number; writer: boolean }) {
  const timeline = useQuery({
    queryKey: timelineKey(dealId),
    queryFn: ({ signal }) => ll.activity.timeline(dealId, { per_page: 30 }, { signal }),
  });
  const comments = useQuery({
    queryKey: commentsKey(dealId),
    queryFn: ({ signal }) => ll.comments.list(dealId, { per_page: 50 }, { signal }),
  });
  const [text, setText] = useState('');
  const post = useMutation({
    mutationFn: () => ll.comments.create(dealId, { body: text.trim() }),
    onSuccess: async () => {
      setText('');
      await queryClient.invalidateQueries({ queryKey: commentsKey(dealId) });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    post.mutate();
  };
  // comments have their own list (with their text); the timeline shows everything else
  const lines = (timeline.data?.data ?? []).filter((line) => line.type !== 'comment');
  const said = comments.data?.data ?? [];
  return (
    <section className="panel timeline" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      {writer ? (
        <form onSubmit={submit} aria-label="Comment">
          <label className="block">
            Comment (@name or @email notifies a colleague)
            <textarea rows={2} value={text} maxLength={10000} onChange={(e) => setText(e.target.value)} />
          </label>
          {post.isError ? <ErrorNotice error={post.error} action="post the comment" /> : null}
          <div className="actions">
            <button type="submit" className="primary" disabled={!text.trim() || post.isPending}>
              {post.isPending ? 'Posting…' : 'Comment'}
            </button>
          </div>
        </form>
      ) : null}
      {comments.isError ? <ErrorNotice error={comments.error} /> : null}
      {said.length ? (
        <div className="scroll comments" role="region" aria-label="Comments" tabIndex={0}>
          <ol className="lines" aria-label="Comments">
            {said.map((c) => (
              <li key={c.id}>
                <span className="line-text">{c.body}</span>
                <span className="muted small">
                  {c.user_name ?? `user ${c.user_id}`}, {when(c.created_at)}
                  {c.replies?.length ? `, ${c.replies.length} repl${c.replies.length === 1 ? 'y' : 'ies'}` : ''}
                </span>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      {timeline.isError ? <ErrorNotice error={timeline.error} /> : null}
      <div className="scroll" role="region" aria-label="Timeline" tabIndex={0}>
        <ol className="lines" aria-label="Timeline entries" aria-busy={timeline.isFetching}>
          {lines.map((line) => (
            <li key={line.id} data-type={line.type}>
              <span className="line-text">{line.description}</span>
              <time className="muted small" dateTime={line.created_at}>
                {when(line.created_at)}
              </time>
            </li>
          ))}
          {!timeline.isPending && lines.length === 0 ? <li className="muted">Nothing yet.</li> : null}
        </ol>
      </div>
    </section>
  );
}

/** A read-only link to the deal's summary for someone outside (expiring, optionally with a password). */
export function SharePanel({ dealId }: { dealId: number }) {
  const [days, setDays] = useState('7');
  const [password, setPassword] = useState('');
  const [made, setMade] = useState<ShareLink | null>(null);
  const create = useMutation({
    mutationFn: () => ll.shares.create(dealId, { expires_in_hours: Math.round(Number(days) * 24), ...(password ? { password } : {}) }),
    onSuccess: (link) => {
      setMade(link);
      setPassword('');
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const valid = Number.isFinite(Number(days)) && Number(days) > 0 && Number(days) <= 365;
  return (
    <section className="panel share" aria-labelledby="share-title">
      <h2 id="share-title">Share a summary</h2>
      <form onSubmit={submit} aria-label="Share link">
        <label className="block">
          Expires after (days)
          <input inputMode="numeric" value={days} onChange={(e) => setDays(e.target.value)} />
        </label>
        <label className="block">
          Password (optional)
          <input type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        {create.isError ? <ErrorNotice error={create.error} action="create the link" /> : null}
        <div className="actions">
          <button type="submit" disabled={!valid || create.isPending}>
            Create link
          </button>
        </div>
      </form>
      {made ? (
        <p className="share-made" data-testid="share-link">
          <a href={made.url} target="_blank" rel="noreferrer">
            {made.url}
          </a>
          <span className="muted small">
            {' '}
            expires {when(made.expires_at)}
            {made.password_protected ? ', password protected' : ''}
          </span>
        </p>
      ) : null}
    </section>
  );
}
