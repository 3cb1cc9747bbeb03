import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestApp } from './support/harness';
import { describeWith } from './support/system-tools';

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describeWith('openssl')('native TLS in production', () => {
  let app: TestApp;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledgerlens-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    app = await TestApp.start({
      NODE_ENV: 'production',
      PUBLIC_URL: 'https://127.0.0.1',
      TLS_CERT_FILE: join(dir, 'cert.pem'),
      TLS_KEY_FILE: join(dir, 'key.pem'),
      LOG_LEVEL: 'error',
    });
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves HTTPS and treats its requests as secure', async () => {
    const url = app.url.replace('http://', 'https://');
    const res = await get(`${url}/v1/deals`);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).code).toBe('AUTH_REQUIRED');
  });

  it('does not answer plain HTTP on the TLS port', async () => {
    await expect(fetch(`${app.url}/health`)).rejects.toThrow();
  });
});
