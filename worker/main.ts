import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NativeConnection, Runtime, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { exitIfConfigError, gatewayCallbackBaseUrl, loadConfigOrExit, webhookEndpointLimits, webhookTargetPolicy, type Config } from '../platform/config';
import { freePort } from '../platform/free-port';
import { createLogger } from '../platform/logger';
import { connectMongo, ensureIndexes } from '../platform/mongo';
import { createActivities } from '../activities';
import { gatewaysOfConfig } from '../gateways/registry';
import { loadWorkflowBundle } from './bundle';
import { describePlan, planWorkers, WorkerConfigError, type QueueWorker } from './worker-options';
import { stopWhenLauncherGone } from '../platform/launcher';
import { createSessionPaymentCompletions } from '../api/checkout-sessions/payment-completions';
import { createReturnRefunds } from '../api/returns/refund-port';
import { createInvoiceCharges } from '../api/subscriptions/invoice-charges';
import { redemptionGiveBack } from '../api/coupons/redeem';
import { createApiMetrics } from '../api/http/metrics';
import { ensureReconciliationSchedule } from './reconciliation-schedule';
import { ensureStrandedSweepSchedule } from './stranded-sweep-schedule';
import { temporalConnectionOptions } from '../platform/temporal';
import { dataConverterFor } from '../platform/data-converter';
import { sandboxSettlementReport } from '../gateways/sandbox-settlement';

async function main() {
  const config = loadConfigOrExit();
  temporalConnectionOptions(config); // reads the TLS files: one that cannot be read exits 78 before any connection
  const logger = createLogger({ name: 'worker', level: config.LOG_LEVEL });
  // The SDK's own metrics (task latencies, slots, polls) on a loopback port; /metrics below merges them
  // with ours so one scrape target serves both. WORKER_METRICS_PORT=0 (tests) picks free ports.
  const sdkMetricsPort = config.WORKER_METRICS_PORT === 0 ? await freePort() : config.WORKER_METRICS_PORT + 1;
  const sdkMetricsAddress = `127.0.0.1:${sdkMetricsPort}`;
  Runtime.install({
    logger: sdkLogger(logger),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} },
      metrics: { prometheus: { bindAddress: sdkMetricsAddress } },
    },
  });

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const gateways = gatewaysOfConfig(config);
  // Before any connection: a gateway the registry does not know stops the process at once.
  const plan = planWorkersOrExit(config, gateways.names());
  const mongo = await connectMongo(config.MONGODB_URI, { maxPoolSize: config.MONGODB_MAX_POOL_SIZE });
  await ensureIndexes(mongo);
  // Subscriptions' invoices are charged, and stranded subscriptions' coupon redemptions given back, by the
  // API's own code (no HTTP metrics here).
  const apiCode = { config, mongo, logger, gateways, metrics: createApiMetrics(), workerPolling: async () => true };
  const activities = createActivities({
    mongo,
    logger,
    registry,
    gateways,
    invoiceCharges: createInvoiceCharges(apiCode),
    sessionPayments: createSessionPaymentCompletions(apiCode),
    returnRefunds: createReturnRefunds(apiCode),
    redemptionGiveBack: redemptionGiveBack(apiCode),
    callbackBaseUrl: gatewayCallbackBaseUrl(config),
    settlementReports: [sandboxSettlementReport({ baseUrl: config.SANDBOX_URL, timeoutMs: 30_000 })],
    webhooks: {
      ...webhookTargetPolicy(config),
      ...webhookEndpointLimits(config),
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      ...(config.WEBHOOK_RETRY_SCHEDULE ? { retrySchedule: config.WEBHOOK_RETRY_SCHEDULE } : {}),
    },
  });
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  // PAYLOAD_CODEC: payloads sealed per tenant before they reach Temporal (platform/payload-codec.ts).
  const dataConverter = dataConverterFor(config);
  const workflowBundle = plan.some((q) => q.runsWorkflows) ? await loadWorkflowBundle(config.WORKFLOW_BUNDLE_PATH) : undefined;
  // One Worker per queue this process polls (WORKER_QUEUES): payments and webhook sends scale apart as
  // separate deployments; each gateway's calls have a queue with its own rate limit.
  const workers = await Promise.all(
    plan.map((q) => Worker.create({ connection, ...q.options, activities, ...(dataConverter ? { dataConverter } : {}), ...(q.runsWorkflows ? { workflowBundle } : {}) })),
  );

  const metricsServer = http.createServer(async (req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(req.url === '/healthz' ? 200 : 404).end(req.url === '/healthz' ? 'ok' : '');
      return;
    }
    const sdk = await fetch(`http://${sdkMetricsAddress}/metrics`).then((r) => r.text()).catch(() => '');
    res.writeHead(200, { 'Content-Type': registry.contentType }).end(`${await registry.metrics()}\n${sdk}`);
  });
  const metricsPort = await new Promise<number>((resolve) =>
    metricsServer.listen(config.WORKER_METRICS_PORT, '0.0.0.0', () => resolve((metricsServer.address() as AddressInfo).port)),
  );
  await ensureReconciliationSchedule(config, logger);
  await ensureStrandedSweepSchedule(config, logger);
  logger.info({ metricsPort, taskQueues: plan.map((q) => q.options.taskQueue), workers: describePlan(plan) }, 'worker running');
  if (process.send) process.send({ type: 'ready', metricsPort });
  // SIGTERM/SIGINT: the SDK stops polling, lets running tasks finish (drain), then run() resolves.
  await Promise.all(workers.map((w) => w.run()));
  metricsServer.close();
  await connection.close();
  await mongo.close();
  logger.info('worker stopped cleanly');
}

/** A gateway the registry does not know is a configuration error: exit 78 like any other. */
function planWorkersOrExit(config: Config, gatewayNames: string[]): QueueWorker[] {
  try {
    return planWorkers(config, gatewayNames);
  } catch (err) {
    if (!(err instanceof WorkerConfigError)) throw err;
    process.stderr.write(`invalid configuration:\n  ${err.message}\n`);
    process.exit(78);
  }
}

/** The SDK's logger interface over our pino logger: one JSON log stream per process. */
function sdkLogger(logger: ReturnType<typeof createLogger>) {
  const at = (level: 'trace' | 'debug' | 'info' | 'warn' | 'error') => (message: string, meta?: Record<string, unknown>) =>
    logger[level](meta ?? {}, message);
  return {
    log: (level: string, message: string, meta?: Record<string, unknown>) => at(level.toLowerCase() as 'info')(message, meta),
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
}

main().catch((err) => {
  exitIfConfigError(err);
  process.stderr.write(`worker failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});

stopWhenLauncherGone();
