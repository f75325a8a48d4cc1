import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gatewaysOfConfig } from '../gateways/registry';
import { loadConfig } from '../platform/config';
import { planWorkers } from '../worker/worker-options';
import { connectMongo } from '../platform/mongo';
import { createConnector, createTenant, issueKey } from '../api/admin/provisioning';
import { webhookSigningSecretData } from '../data/webhook-signing-secrets';
import { assertPortsFree, ROOT, startStack, type Stack, devSandboxPort } from './stack';
import { seedDemoCatalog } from './demo-catalog';
import { writeFilledCollection } from '../examples/http/fill';

// `npm run dev`: the whole stack on this machine, data kept under .data/ (git-ignored; DEV_DATA_DIR names
// another directory), a demo tenant created once, and what you need to make a first payment printed at the
// end. Ctrl-C stops every child. A start that fails stops whatever it had started and exits 1 saying why.

const DATA = process.env.DEV_DATA_DIR ? path.resolve(process.env.DEV_DATA_DIR) : path.join(ROOT, '.data');
const DEMO_FILE = path.join(DATA, 'demo-tenant.json');
const LOGS = path.join(DATA, 'logs');

// Ctrl-C (or SIGTERM, or the terminal closing) while starting abandons the start; once running, it stops the stack.
const starting = new AbortController();
let stack: Stack | null = null;
let stopping = false;
async function stop(signal: NodeJS.Signals) {
  if (!stack) return starting.abort(signal);
  if (stopping) return;
  stopping = true;
  process.stdout.write('\nstopping...\n');
  await stack.stop();
  process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal));

async function main() {
  mkdirSync(DATA, { recursive: true });
  const port = Number(process.env.PORT ?? 3000);
  const uiPort = Number(process.env.TEMPORAL_UI_PORT ?? 8233);
  const sandboxPort = devSandboxPort();
  // A generated admin token, kept across restarts so scripts that use it keep working.
  const tokenFile = path.join(DATA, 'admin-token');
  const adminToken = process.env.ADMIN_API_TOKEN ?? (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : `adm_${randomBytes(24).toString('hex')}`);
  if (!process.env.ADMIN_API_TOKEN) writeFileSync(tokenFile, adminToken, { mode: 0o600 });
  const passthrough = Object.fromEntries(
    // What the stack would set for itself, the caller's value wins (the rest reaches the processes anyway: they
    // inherit this environment).
    Object.entries(process.env).filter(
      ([k, v]) => v !== undefined && /^(WEBHOOK_|REGIONS|REGION_HOST_ALIASES|LOG_LEVEL|PUBLIC_BASE_URL|TEMPORAL_NAMESPACE|KEY_HASH_SECRET|HOST$|WORKER_METRICS_PORT$|SANDBOX_PUBLIC_URL$|SANDBOX_URL$)/.test(k),
    ),
  ) as Record<string, string>;
  const env: Record<string, string> = {
    ADMIN_API_TOKEN: adminToken,
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? `http://localhost:${port}`,
    WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', // local receivers (localhost, LAN) are the point of dev
    ...passthrough,
  };

  // What fails for certain is refused before anything starts: a configuration the API and worker would
  // refuse (they exit 78), and the fixed ports taken (often by a previous `npm run dev` still running).
  const config = loadConfig({ ...process.env, NODE_ENV: 'development', ...env });
  planWorkers(config, gatewaysOfConfig(config).names()); // a gateway the registry does not know (WORKER_QUEUES, GATEWAY_RATE_LIMITS)
  await assertPortsFree({ [`API, PORT`]: port, [`gateway sandbox, SANDBOX_PORT`]: sandboxPort, ...(process.env.TEMPORAL_ADDRESS ? {} : { [`Temporal UI, TEMPORAL_UI_PORT`]: uiPort }) });

  stack = await startStack({
    dataDir: DATA,
    logDir: LOGS,
    signal: starting.signal,
    temporalDb: 'durable',
    temporalUiPort: process.env.TEMPORAL_ADDRESS ? null : uiPort,
    echo: process.env.DEV_ECHO_LOGS === '1',
    apiPort: port,
    sandboxPort,
    ...(process.env.TEMPORAL_NAMESPACE ? { temporalNamespace: process.env.TEMPORAL_NAMESPACE } : {}),
    ...(process.env.TEMPORAL_ADDRESS ? { temporalAddress: process.env.TEMPORAL_ADDRESS } : {}),
    ...(process.env.MONGODB_URI ? { mongoUri: process.env.MONGODB_URI } : {}),
    env,
  });
  let demo: Awaited<ReturnType<typeof ensureDemoTenant>>;
  try {
    demo = await ensureDemoTenant(stack.mongoUri, stack.env);
  } catch (err) {
    await stack.stop();
    throw err;
  }
  // The .http collection of the main calls (examples/http/payorch.http) with the demo tenant's keys filled in.
  const httpCollection = path.join(DATA, 'payorch.http');
  writeFilledCollection(
    { baseUrl: stack.apiUrl.replace('127.0.0.1', 'localhost'), secretKey: demo.secretKey, publishableKey: demo.publishableKey, adminToken, tenant: demo.tenant },
    httpCollection,
  );

  const line = '─'.repeat(72);
  process.stdout.write(
    [
      '',
      line,
      ' Payment orchestration: running',
      line,
      ` API            ${stack.apiUrl.replace('127.0.0.1', 'localhost')}   (docs: /docs, OpenAPI: /openapi.json)`,
      ` Temporal UI    ${stack.temporalUiUrl ?? '(external Temporal: ' + stack.temporalAddress + ')'}`,
      ` Gateway sandbox ${stack.sandboxUrl}`,
      ` MongoDB        ${stack.mongoUri}`,
      ` Admin token    ${adminToken}`,
      '',
      ` Demo tenant    ${demo.tenant}`,
      ` Secret key     ${demo.secretKey}`,
      ` Publishable key ${demo.publishableKey}`,
      ...('mitSecretKey' in demo && demo.mitSecretKey ? [` cards.mit key  ${demo.mitSecretKey}   (POST /cards/mit: charges saved cards)`] : []),
      ` Webhook signing secret ${demo.signingSecret}   (verify deliveries with any Standard Webhooks library: docs/webhooks.md)`,
      ` Requests       ${httpCollection}   (VS Code REST Client; or: npx tsx examples/http/run.ts ${httpCollection})`,
      ` Example shop   ${shopCommand(stack.apiUrl)}   (http://localhost:4242)`,
      '',
      ' Create a first payment intent, then open its "url" to pay with 4242 4242 4242 4242:',
      `   curl -s ${stack.apiUrl.replace('127.0.0.1', 'localhost')}/v202607/payment-intents \\`,
      `     -H "Authorization: Bearer ${demo.secretKey}" -H "Content-Type: application/json" \\`,
      `     -d '{"amount": 2500, "currency": "EUR"}'`,
      '',
      ` Logs in ${LOGS}. Ctrl-C stops everything.`,
      line,
      '',
    ].join('\n'),
  );

  for (const [name, proc] of Object.entries(stack.procs)) {
    proc.child.on('exit', (code) => {
      if (!stopping) process.stderr.write(`${name} exited (${code}); see ${proc.logFile}\n`);
    });
  }
}

/** The demo tenant is created once; its keys are kept in .data/ because keys are otherwise shown only once. */
async function ensureDemoTenant(mongoUri: string, env: Record<string, string>) {
  const config = loadConfig({ ...process.env, ...env });
  const mongo = await connectMongo(mongoUri);
  try {
    // The indexes are there: startStack made them before the API and the worker started.
    if (existsSync(DEMO_FILE)) {
      const saved = JSON.parse(readFileSync(DEMO_FILE, 'utf8'));
      if (await mongo.c.tenants.findOne({ _id: saved.tenant })) {
        await seedDemoCatalog(mongo, saved.tenant);
        return { ...(saved as { tenant: string; secretKey: string; publishableKey: string; mitSecretKey?: string }), signingSecret: (await webhookSigningSecretData(mongo).ensure(saved.tenant)).secret };
      }
    }
    const { tenant, secretKey, publishableKey } = await createTenant(mongo, config.KEY_HASH_SECRET, { name: 'Demo Shop', region: config.DEFAULT_REGION });
    await createConnector(mongo, tenant._id, tenant.region, { gateway: 'sandbox', live: true, payment_methods: ['card'], payouts: true });
    const mit = await issueKey(mongo, config.KEY_HASH_SECRET, tenant._id, tenant.region, 'secret', ['cards.mit']);
    const demo = { tenant: tenant._id, secretKey, publishableKey, mitSecretKey: mit.key };
    writeFileSync(DEMO_FILE, JSON.stringify(demo, null, 2), { mode: 0o600 });
    await seedDemoCatalog(mongo, tenant._id);
    return { ...demo, signingSecret: (await webhookSigningSecretData(mongo).ensure(tenant._id)).secret };
  } finally {
    await mongo.close();
  }
}

/** The example shop's command, with what it must be told when this stack is not on the defaults it assumes. */
function shopCommand(apiUrl: string): string {
  const env = [
    ...(process.env.DEV_DATA_DIR ? [`DEV_DATA_DIR=${DATA}`] : []),
    // The shop reads a generated token from the data directory; one given to dev is written nowhere.
    ...(process.env.ADMIN_API_TOKEN ? [`ADMIN_API_TOKEN=${process.env.ADMIN_API_TOKEN}`] : []),
    ...(new URL(apiUrl).port !== '3000' ? [`PAYORCH_API_URL=${apiUrl.replace('127.0.0.1', 'localhost')}`] : []),
  ];
  return [...env, 'npx tsx examples/merchant-backend/main.ts'].join(' ');
}

main().catch((err) => {
  // startStack has stopped whatever it had started by the time it rejects.
  if (starting.signal.aborted) {
    const signal = starting.signal.reason as NodeJS.Signals;
    process.stderr.write(`npm run dev: stopped while starting (${signal}). Nothing it started is left running.\n`);
    process.exit(128 + (os.constants.signals[signal] ?? 0));
  }
  const message = err instanceof Error ? err.message : String(err);
  const hint = /already in use/.test(message) ? '\nIs another `npm run dev` still running? Stop it, or choose other ports with PORT, TEMPORAL_UI_PORT and SANDBOX_PORT.' : '';
  process.stderr.write(`npm run dev could not start: ${message}${hint}\nNothing it started is left running. Logs: ${LOGS}\n`);
  process.exit(1);
});
