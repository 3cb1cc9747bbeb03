import { describeError } from '../api';

/** The API's answer to a failed call, as the API worded it (a 403 says what the role lacks). */
export function ErrorNotice({ error, action }: { error: unknown; action?: string }) {
  if (!error) return null;
  const { status, message } = describeError(error);
  const title =
    status === 403
      ? 'Not allowed'
      : status === 401
        ? 'Signed out'
        : status === 404
          ? 'Not found'
          : status === 409 || status === 422
            ? 'Not possible now'
            : 'Something went wrong';
  return (
    <div className={`notice ${status === 403 ? 'notice-forbidden' : 'notice-error'}`} role="alert">
      <strong>
        {title}
        {status ? ` (${status})` : ''}
        {action ? `: ${action}` : ''}
      </strong>
      <span>{message}</span>
    </div>
  );
}
