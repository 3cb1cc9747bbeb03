import { existsSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Heartbeat, heartbeatAge } from './heartbeat';

describe('worker heartbeat', () => {
  const dir = mkdtempSync(join(tmpdir(), 'll-heartbeat-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('beats only while the check passes, and stops (file removed) on shutdown', async () => {
    const file = join(dir, 'beat');
    let healthy = false;
    const beat = new Heartbeat(file, 3600, async () => {
      if (!healthy) throw new Error('database down');
    });
    await beat.start();
    expect(await heartbeatAge(file)).toBeNull();
    await beat.stop();

    healthy = true;
    const ok = new Heartbeat(file, 3600, async () => undefined);
    await ok.start();
    expect(await heartbeatAge(file)).toBeLessThan(5);
    // An old beat is stale to the health check.
    const old = (Date.now() - 120_000) / 1000;
    utimesSync(file, old, old);
    expect(await heartbeatAge(file)).toBeGreaterThan(100);
    await ok.stop();
    expect(existsSync(file)).toBe(false);
  });
});
