import { stat, unlink, writeFile } from 'node:fs/promises';

/**
 * Liveness for a process without an HTTP port (ROLE=worker): every `seconds`, when `check` (its
 * database and Redis answer) passes, the time is written to `file`. A container health check
 * (`cli.js heartbeat --max-age N`) fails when the file is older than N seconds or missing.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly file: string,
    private readonly seconds: number,
    private readonly check: () => Promise<void>,
  ) {}

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => void this.beat(), this.seconds * 1000);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    try {
      await this.check();
      await writeFile(this.file, `${new Date().toISOString()}\n`);
    } catch {
      /* no beat: the health check sees the file age */
    }
  }

  /** Stops beating and removes the file, so a draining process reports unhealthy at once. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await unlink(this.file).catch(() => undefined);
  }
}

/** Age in seconds of the last beat, or null when there is none. */
export async function heartbeatAge(file: string, now = Date.now()): Promise<number | null> {
  try {
    return (now - (await stat(file)).mtimeMs) / 1000;
  } catch {
    return null;
  }
}
