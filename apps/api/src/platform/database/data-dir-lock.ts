import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The embedded database lives in one process at a time. A second process (a CLI run while the
 * server is up) must fail at once with a clear message instead of waiting or corrupting files.
 * The lock is a file holding the owner's pid; a lock left by a dead process is taken over.
 */
export class DataDirLockedError extends Error {}

export class DataDirLock {
  private constructor(private readonly path: string) {}

  static acquire(dataDir: string): DataDirLock {
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, 'ledgerlens.lock');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return new DataDirLock(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const owner = Number(readSafe(path));
        if (owner && owner !== process.pid && isAlive(owner)) {
          throw new DataDirLockedError(
            `The embedded database in ${dataDir} is in use by another Ledgerlens process (pid ${owner}). ` +
              'Stop that process first, or point DATABASE_URL at a PostgreSQL server to run several processes.',
          );
        }
        try {
          unlinkSync(path);
        } catch {
          /* another process may have removed the stale lock first: retry */
        }
      }
    }
    throw new DataDirLockedError(`Could not lock ${dataDir}`);
  }

  release(): void {
    try {
      if (Number(readSafe(this.path)) === process.pid) unlinkSync(this.path);
    } catch {
      /* already gone */
    }
  }
}

function readSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
