/**
 * `@mentions` in comment text. A mention is `@` followed by a user's full email
 * (`@ana@example.com`) or by the part of the email before the `@` (`@ana`), which is the user's
 * handle when no other user of the organization shares it. The `@` must not follow a letter,
 * digit, `.` or `@`, so an email address written without a leading `@` mentions nobody.
 */
const MENTION = /(?<![\w@.])@([A-Za-z0-9._%+-]+(?:@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)?)/g;

/** The handles written in the text, lowercased, in order, without repeats. */
export function mentionHandles(text: string): string[] {
  const handles: string[] = [];
  for (const match of text.matchAll(MENTION)) {
    const handle = match[1].replace(/\.+$/, '').toLowerCase();
    if (handle && !handles.includes(handle)) handles.push(handle);
  }
  return handles;
}

export interface Mentionable {
  id: number;
  email: string;
}

/** The ids of the users the text mentions (full email, or an unambiguous handle), in order of first mention. */
export function resolveMentions(text: string, users: readonly Mentionable[]): number[] {
  const handles = mentionHandles(text);
  if (handles.length === 0) return [];
  const byEmail = new Map(users.map((u) => [u.email.toLowerCase(), u.id]));
  const byHandle = new Map<string, number | null>();
  for (const u of users) {
    const local = u.email.toLowerCase().split('@')[0];
    byHandle.set(local, byHandle.has(local) ? null : u.id);
  }
  const ids: number[] = [];
  for (const handle of handles) {
    const id = handle.includes('@') ? byEmail.get(handle) : byHandle.get(handle);
    if (id !== undefined && id !== null && !ids.includes(id)) ids.push(id);
  }
  return ids;
}
