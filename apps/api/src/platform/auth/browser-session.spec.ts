import { csrfAllows, csrfTokenFor, readCookie, sessionCookie } from './browser-session';

describe('browser session cookie and CSRF token', () => {
  it('writes the cookie HttpOnly and SameSite=Strict, Secure only when asked (production)', () => {
    expect(sessionCookie('sess_abc', 86400, false)).toBe('ll_session=sess_abc; Path=/; HttpOnly; SameSite=Strict; Max-Age=86400');
    expect(sessionCookie('sess_abc', 86400, true)).toBe('ll_session=sess_abc; Path=/; HttpOnly; SameSite=Strict; Max-Age=86400; Secure');
    expect(sessionCookie('', 0, true)).toBe('ll_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure');
  });

  it('reads one cookie out of a Cookie header', () => {
    expect(readCookie('a=1; ll_session=sess_x; b=2', 'll_session')).toBe('sess_x');
    expect(readCookie('ll_session_other=1', 'll_session')).toBeNull();
    expect(readCookie('ll_session=', 'll_session')).toBeNull();
    expect(readCookie(undefined, 'll_session')).toBeNull();
  });

  it('lets safe methods through and wants the session-bound token on writes', () => {
    const token = csrfTokenFor('sess_one');
    expect(token).not.toBe(csrfTokenFor('sess_two'));
    expect(csrfAllows('GET', 'sess_one', undefined)).toBe(true);
    expect(csrfAllows('HEAD', 'sess_one', undefined)).toBe(true);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(csrfAllows(method, 'sess_one', token)).toBe(true);
      expect(csrfAllows(method, 'sess_one', undefined)).toBe(false);
      expect(csrfAllows(method, 'sess_one', '')).toBe(false);
      expect(csrfAllows(method, 'sess_one', csrfTokenFor('sess_two'))).toBe(false);
      expect(csrfAllows(method, 'sess_one', [token, token])).toBe(false);
    }
  });
});
