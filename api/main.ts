import { exitIfConfigError, loadConfigOrExit } from '../platform/config';
import { createLogger } from '../platform/logger';
import { connectMongo, ensureIndexes } from '../platform/mongo';
import { ensureTenantNumbers } from '../data/tenants';
import { ensureOlderIds } from '../data/payment-intents';
import { ensureRefundOlderIds } from '../data/refunds';
import { ensureInlineRecipientScopes } from '../data/payout-recipients';
import { connectTemporalClient, hasPollers, temporalConnectionOptions } from '../platform/temporal';
import { gatewaysOfConfig } from '../gateways/registry';
import { createApp } from './app';
import { answerClientErrors } from './http/client-errors';
import { createApiMetrics } from './http/metrics';
import type { AppDeps } from './deps';
import { stopWhenLauncherGone } from '../platform/launcher';

async function main() {
  const config = loadConfigOrExit();
  temporalConnectionOptions(config); // reads the TLS files: one that cannot be read exits 78 before any connection
  const logger = createLogger({ name: 'api', level: config.LOG_LEVEL });
  const mongo = await connectMongo(config.MONGODB_URI, { maxPoolSize: config.MONGODB_MAX_POOL_SIZE });
  await ensureIndexes(mongo);
  await ensureTenantNumbers(mongo); // tenants of a .data/ from before integer ids get theirs before anyone reads them
  await ensureOlderIds(mongo); // and so do payment intents, which the older interface names by UUID and integer
  await ensureRefundOlderIds(mongo); // and refunds (after the intents: a refund's row copies its intent's ids)
  await ensureInlineRecipientScopes(mongo); // payouts' inline recipients stored before their scope moved under `payout:`
  const temporal = await connectTemporalClient(config);
  const deps: AppDeps = {
    config,
    mongo,
    temporal,
    logger,
    metrics: createApiMetrics(),
    // GATEWAY_TIMEOUT_MS bounds the API's own gateway calls too (recipient registration, a payout's status).
    gateways: gatewaysOfConfig(config),
    workerPolling: () => hasPollers(temporal, config.TEMPORAL_NAMESPACE, config.TEMPORAL_TASK_QUEUE),
  };
  const app = createApp(deps);
  const server = app.listen(config.PORT, config.HOST, () => {
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.PORT;
    logger.info({ port, host: config.HOST }, 'api listening');
    // Machine-readable line for the dev and test launchers.
    if (process.send) process.send({ type: 'listening', port });
  });
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server, logger);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'api stopping');
    server.close();
    server.closeIdleConnections();
    await Promise.allSettled([mongo.close(), temporal.connection.close()]);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  exitIfConfigError(err);
  process.stderr.write(`api failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});

stopWhenLauncherGone();
