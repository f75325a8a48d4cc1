import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import { Registry } from 'prom-client';
import { createWebhookActivities } from '../activities/webhooks';
import { createLogger } from '../platform/logger';
import { connectMongo } from '../platform/mongo';
import { SA } from '../workflows/search-attributes';
import { WEBHOOK_DELIVERY_WORKFLOW, type WebhookDeliveryInput } from '../workflows/webhook-delivery/messages';
import { loadWorkflowBundle } from '../worker/bundle';
import { startReceiver } from '../test/unit/webhooks/receiver';
import { startDrillStack } from './drills/lib';

// Drill (npm run drill:webhooks): one merchant's slow endpoint (it sleeps before answering) flooded with
// deliveries beside another merchant's fast endpoint, on one webhook worker with a fixed number of activity
// slots. Run without the per-endpoint in-flight cap (WEBHOOK_ENDPOINT_MAX_IN_FLIGHT=0) and with it; then with the
// slow merchant's flood spread over DRILL_SLOW_URLS URLs (an order id in each), with the endpoint cap alone and
// with the tenant cap too (WEBHOOK_TENANT_MAX_IN_FLIGHT).
// Prints the fast merchant's delivery latency (from the start of its delivery to its arrival) p50/p99/max.
// Real parts: Temporal dev server, FerretDB, the webhook activities and workflow, HTTP sinks on loopback.

const num = (name: string, dflt: number) => Number(process.env[name] ?? dflt);
const SLOW_DELIVERIES = num('DRILL_SLOW_DELIVERIES', 120);
const SLOW_SLEEP_MS = num('DRILL_SLOW_SLEEP_MS', 5000);
const FAST_DELIVERIES = num('DRILL_FAST_DELIVERIES', 40);
const FAST_EVERY_MS = num('DRILL_FAST_EVERY_MS', 150);
const ACTIVITY_SLOTS = num('DRILL_ACTIVITY_SLOTS', 20);
const CAP = num('DRILL_CAP', 4);
const SLOW_URLS = num('DRILL_SLOW_URLS', 30);
const TENANT_CAP = num('DRILL_TENANT_CAP', 8);

const say = (s: string) => process.stdout.write(`${s}\n`);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};

async function main() {
  Runtime.install({ telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } } });
  const { stack } = await startDrillStack('webhooks');
  const mongo = await connectMongo(stack.mongoUri);
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection });
  const native = await NativeConnection.connect({ address: stack.temporalAddress });
  const workflowBundle = await loadWorkflowBundle();
  const arrivals = new Map<string, number>();
  const slow = await startReceiver((_r, res) => setTimeout(() => res.writeHead(200).end(), SLOW_SLEEP_MS));
  const fast = await startReceiver((r, res) => {
    arrivals.set(String(r.headers['webhook-id']), Date.now());
    res.writeHead(204).end();
  });
  const results: string[] = [];
  try {
    const scenarios = [
      { urls: 1, cap: 0, tenantCap: 0 },
      { urls: 1, cap: CAP, tenantCap: 0 },
      { urls: SLOW_URLS, cap: CAP, tenantCap: 0 },
      { urls: SLOW_URLS, cap: CAP, tenantCap: TENANT_CAP },
    ];
    for (const { urls, cap, tenantCap } of scenarios) {
      const run = `u${urls}c${cap}t${tenantCap}x${Date.now()}`;
      const taskQueue = `drill-webhooks-${run}`;
      const activities = createWebhookActivities({
        mongo,
        logger: createLogger({ name: 'drill-webhooks', level: 'error' }),
        registry: new Registry(),
        webhooks: { allowPrivateHosts: true, timeoutMs: SLOW_SLEEP_MS + 5000, maxInFlightPerEndpoint: cap, maxInFlightPerTenant: tenantCap },
      });
      const worker = await Worker.create({ connection: native, taskQueue, workflowBundle, activities, maxConcurrentActivityTaskExecutions: ACTIVITY_SLOTS });
      const running = worker.run();
      const start = (tenant: string, url: string, eventId: string) =>
        client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
          workflowId: `${eventId}-0`,
          taskQueue,
          args: [
            { eventId, eventType: 'drill.ping', tenantId: tenant, url, endpointIndex: 0, source: { kind: 'payment_intent', id: 'pi_drill' }, body: `{"id":"${eventId}"}`, format: 'envelope' } satisfies WebhookDeliveryInput,
          ],
          typedSearchAttributes: [{ key: SA.DeliveryStatus, value: 'pending' }],
        });
      const slowIds: string[] = [];
      for (let i = 0; i < SLOW_DELIVERIES; i++) {
        const id = `evt_eu_${run}slow${i}`;
        slowIds.push(id);
        await start('ten_eu_drillslowmerchant', slow.url(`/slow-${run}?order=${i % urls}`), id);
      }
      // The flood is queued: the fast merchant's deliveries start now, one every FAST_EVERY_MS.
      const started = new Map<string, number>();
      for (let i = 0; i < FAST_DELIVERIES; i++) {
        const id = `evt_eu_${run}fast${i}`;
        started.set(id, Date.now());
        await start('ten_eu_drillfastmerchant', fast.url(`/fast-${run}`), id);
        await new Promise((r) => setTimeout(r, FAST_EVERY_MS));
      }
      const deadline = Date.now() + (SLOW_DELIVERIES * SLOW_SLEEP_MS) / Math.max(1, ACTIVITY_SLOTS) + 120_000;
      while ([...started.keys()].some((id) => !arrivals.has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const latencies = [...started].filter(([id]) => arrivals.has(id)).map(([id, t]) => arrivals.get(id)! - t);
      const setting = `${urls} slow URL${urls === 1 ? ' ' : 's'}, ${cap === 0 ? 'no endpoint cap' : `endpoint cap ${cap}`}, ${tenantCap === 0 ? 'no tenant cap' : `tenant cap ${tenantCap}`}`;
      const line =
        `${setting.padEnd(50)} fast merchant: ${latencies.length}/${FAST_DELIVERIES} delivered, ` +
        `latency p50 ${pct(latencies, 50)} ms, p99 ${pct(latencies, 99)} ms, max ${Math.max(...latencies)} ms`;
      say(line);
      results.push(line);
      // The slow flood is not the point: end it so the next run starts from an idle worker.
      await Promise.all(slowIds.map((id) => client.workflow.getHandle(`${id}-0`).terminate('drill over').catch(() => undefined)));
      worker.shutdown();
      await running;
    }
  } finally {
    await slow.close();
    await fast.close();
    await connection.close();
    await native.close();
    await mongo.close();
    await stack.stop();
  }
  say(`\nsetting: ${SLOW_DELIVERIES} deliveries to a sink that answers after ${SLOW_SLEEP_MS} ms (at one URL, or spread over ${SLOW_URLS}), then ${FAST_DELIVERIES} to another tenant's 204 sink every ${FAST_EVERY_MS} ms;`);
  say(`one webhook worker with ${ACTIVITY_SLOTS} activity slots (maxConcurrentActivityTaskExecutions); ${new Date().toISOString()}`);
  for (const l of results) say(l);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`drill failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
