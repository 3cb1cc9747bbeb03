import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { ll, queryClient, type Schemas } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { useSession } from '../components/Root';
import { when } from '../format';

type ShareLink = Schemas['ShareLinkDto'];
type Comment = Schemas['CommentDto'];
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
  const said = comments.data?.data ?? [];
  // comments have their own list (with their text and replies); the timeline shows everything else
  const lines = (timeline.data?.data ?? []).filter((line) => line.type !== 'comment');
  return (
    <section className="panel timeline" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      {writer ? <CommentForm dealId={dealId} label="Comment" hint="Comment (@name or @email notifies a colleague)" /> : null}
      {comments.isError ? <ErrorNotice error={comments.error} /> : null}
      {said.length ? (
        <div className="scroll comments" role="region" aria-label="Comments" tabIndex={0}>
          <ol className="lines" aria-label="Comments">
            {said.map((c) => (
              <CommentItem key={c.id} dealId={dealId} comment={c} writer={writer} />
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

const invalidate = (dealId: number) => queryClient.invalidateQueries({ queryKey: commentsKey(dealId) });

/** A box to write a comment, or a reply to `parentId` (one level deep, as the API keeps threads). */
function CommentForm({
  dealId,
  parentId,
  label,
  hint,
  onDone,
}: {
  dealId: number;
  parentId?: number;
  label: string;
  hint: string;
  onDone?: () => void;
}) {
  const [text, setText] = useState('');
  const post = useMutation({
    mutationFn: () => ll.comments.create(dealId, { body: text.trim(), ...(parentId ? { parent_id: parentId } : {}) }),
    onSuccess: async () => {
      setText('');
      await invalidate(dealId);
      onDone?.();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    post.mutate();
  };
  return (
    <form onSubmit={submit} aria-label={label} className={parentId ? 'reply-form' : undefined}>
      <label className="block">
        {hint}
        <textarea
          rows={2}
          value={text}
          maxLength={10000}
          autoFocus={!!parentId}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape' && onDone) onDone();
          }}
        />
      </label>
      {post.isError ? <ErrorNotice error={post.error} action={parentId ? 'post the reply' : 'post the comment'} /> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={!text.trim() || post.isPending}>
          {post.isPending ? 'Posting…' : parentId ? 'Reply' : 'Comment'}
        </button>
        {onDone ? (
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}

/**
 * One comment: its text, author and time ("edited" once changed), and what the signed-in user may do
 * with it: reply (a top-level comment, anyone who may write), edit (its author), delete (its author
 * or an admin, after a second click). Replies follow it, indented.
 */
function CommentItem({ dealId, comment: c, writer }: { dealId: number; comment: Comment; writer: boolean }) {
  const me = useSession().data?.user;
  const [mode, setMode] = useState<'read' | 'reply' | 'edit' | 'delete'>('read');
  const [draft, setDraft] = useState(c.body);
  const edit = useMutation({
    mutationFn: () => ll.comments.update(c.id, { body: draft.trim() }),
    onSuccess: async () => {
      await invalidate(dealId);
      setMode('read');
    },
  });
  const remove = useMutation({
    mutationFn: () => ll.comments.delete(c.id),
    onSuccess: () => invalidate(dealId),
  });
  const mine = !!me && me.id === c.user_id;
  const who = c.user_name ?? `user ${c.user_id}`;
  const edited = c.updated_at !== c.created_at;
  return (
    <li data-comment-id={c.id}>
      {mode === 'edit' ? (
        <form
          aria-label={`Edit the comment by ${who}`}
          onSubmit={(e) => {
            e.preventDefault();
            edit.mutate();
          }}
        >
          <label className="block">
            Comment
            <textarea
              rows={2}
              value={draft}
              maxLength={10000}
              autoFocus
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Escape') setMode('read');
              }}
            />
          </label>
          {edit.isError ? <ErrorNotice error={edit.error} action="save the comment" /> : null}
          <div className="actions">
            <button type="submit" className="primary" disabled={!draft.trim() || edit.isPending}>
              Save
            </button>
            <button type="button" onClick={() => setMode('read')}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <span className="line-text">{c.body}</span>
      )}
      <span className="muted small comment-meta">
        {who}, {when(c.created_at)}
        {edited ? ' (edited)' : ''}
        {writer && c.parent_id === null && mode === 'read' ? (
          <button type="button" className="link" onClick={() => setMode('reply')} aria-label={`Reply to ${who}`}>
            Reply
          </button>
        ) : null}
        {mine && mode === 'read' ? (
          <button
            type="button"
            className="link"
            onClick={() => {
              setDraft(c.body);
              setMode('edit');
            }}
            aria-label={`Edit the comment by ${who}`}
          >
            Edit
          </button>
        ) : null}
        {(mine || me?.role === 'admin') && mode === 'read' ? (
          <button type="button" className="link" onClick={() => setMode('delete')} aria-label={`Delete the comment by ${who}`}>
            Delete
          </button>
        ) : null}
        {mode === 'delete' ? (
          <>
            {' '}
            Delete this comment?
            <button type="button" className="link danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
              Yes, delete
            </button>
            <button type="button" className="link" onClick={() => setMode('read')}>
              Keep it
            </button>
          </>
        ) : null}
      </span>
      {remove.isError ? <ErrorNotice error={remove.error} action="delete the comment" /> : null}
      {c.replies?.length ? (
        <ol className="lines replies" aria-label={`Replies to ${who}`}>
          {c.replies.map((r) => (
            <CommentItem key={r.id} dealId={dealId} comment={r} writer={writer} />
          ))}
        </ol>
      ) : null}
      {mode === 'reply' ? (
        <CommentForm dealId={dealId} parentId={c.id} label={`Reply to ${who}`} hint={`Reply to ${who}`} onDone={() => setMode('read')} />
      ) : null}
    </li>
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
