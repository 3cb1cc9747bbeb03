import './platform/startup/compile-cache';
import 'reflect-metadata';
import { createApp } from './app.factory';
import { ConfigError, loadConfig } from './platform/config/config';
import { DataDirLockedError } from './platform/database/data-dir-lock';
import { ProvisioningService } from './modules/auth/provisioning.service';
import { randomToken } from './platform/crypto/credentials';
import { DocumentProducer } from './modules/pipeline/services/processing.producer';
import { Heartbeat } from './platform/health/heartbeat';
import { Database } from './platform/database/database.service';

/** `npm start`: the API (ROLE=all|api) or the workers only (ROLE=worker) on the configured database. */
async function main(): Promise<void> {
  const config = loadConfig();
  // the embedded database is created and migrated on the first start: say so before the wait
  process.stdout.write(
    `Starting Ledgerlens (role: ${config.role}, database: ${config.databaseUrl ? 'PostgreSQL' : `embedded, ${config.dataDir}`}) ...\n`,
  );
  const running = await createApp(config);
  const { app } = running;
  const heartbeat = config.heartbeat.file
    ? new Heartbeat(config.heartbeat.file, config.heartbeat.seconds, async () => {
        await app.get(Database).ping();
        await running.redis?.ping();
      })
    : null;
  // Graceful stop: finish in-flight requests and jobs (each within SHUTDOWN_GRACE_SECONDS; a job
  // past it is handed back to the queue), close the database (releasing DATA_DIR), exit 0.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      const bound = config.shutdownDelaySeconds + 2 * config.shutdownGraceSeconds + 5;
      setTimeout(() => process.exit(1), bound * 1000).unref();
      void heartbeat?.stop(); // cannot reject: stop() swallows a failed unlink
      running.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
  if (config.demoBootstrap) await demoBootstrap(app.get(ProvisioningService), config.publicUrl);
  if (config.role === 'worker') {
    await app.get(DocumentProducer).recover();
    await heartbeat?.start();
    process.stdout.write(`Ledgerlens worker running (database: ${running.orm.engine})\n`);
    return;
  }
  await app.listen({ port: config.port, host: config.host });
  // resumed documents are queued once /health answers (parsing runs in the parser processes anyway)
  await app.get(DocumentProducer).recover();
  await heartbeat?.start();
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = config.publicUrl.replace(/:\d+$/, `:${port}`);
  process.stdout.write(`Ledgerlens API listening on ${url} (database: ${running.orm.engine}, role: ${config.role})\n`);
  process.stdout.write(`API reference: ${url}/docs\n`);
  process.stdout.write(`Web app:       ${url}/app/\n`);
}

/** First start of an empty embedded install: a demo organization, an admin and a live key to curl with at once. */
async function demoBootstrap(provisioning: ProvisioningService, url: string): Promise<void> {
  if ((await provisioning.organizationCount()) > 0) return;
  const password = randomToken(12);
  const result = await provisioning.bootstrap({ orgName: 'Demo Funding', email: 'admin@demo.local', password, name: 'Demo Admin' });
  process.stdout.write(
    [
      '',
      'First start: created the demo organization "Demo Funding".',
      `  admin login:   admin@demo.local / ${password}`,
      `  live API key:  ${result.api_key}`,
      `  test API key:  ${result.test_api_key}`,
      `  try:           curl -H "X-API-Key: ${result.api_key}" ${url}/v1/deals`,
      'These secrets are shown once; set DEMO_BOOTSTRAP=false to skip this step.',
      '',
    ].join('\n') + '\n',
  );
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DataDirLockedError) {
    process.stderr.write(`${err.message}\n`);
  } else {
    process.stderr.write(`Ledgerlens failed to start: ${(err as Error)?.stack ?? String(err)}\n`);
  }
  process.exit(1);
});
