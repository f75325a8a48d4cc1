import type { Client } from '@temporalio/client';
import type { MongoClient } from 'mongodb';
import { randomUUID } from 'node:crypto';
import { api, createMerchant, eventually, getStack, mongo, temporalClient, type Merchant } from './harness';

// The stranded-records sweep on the real stack. A create inserts its intent at version 0 and takes it back when
// its workflow cannot be started; a record left behind (the API stopped between the two steps, or the database
// refused the take-back too) reads as a pending intent that never expires. The sweep deletes such records once
// they are older than its cutoff, with the webhook secrets they name, and leaves every intent whose workflow
// exists. Other test files share the stack, so assertions are about this file's own records.

let m: Merchant;
let db: MongoClient;
let temporal: Client;
const intents = () => db.db().collection('payment_intents');
const secrets = () => db.db().collection('webhook_secrets');
const HOUR_AGO = () => new Date(Date.now() - 3600_000);

beforeAll(async () => {
  m = await createMerchant();
  db = await mongo();
  temporal = await temporalClient();
});
afterAll(async () => {
  await db.close();
  await temporal.connection.close();
});

/** An intent made through the API, read back once its workflow has written it. */
async function createdIntent() {
  const r = await api.post('/v202607/payment-intents', { amount: 1500, currency: 'EUR' }, m.secretKey);
  expect(r.status).toBe(201);
  const id = r.body.payment_intent as string;
  return eventually(async () => {
    const rec = await intents().findOne({ _id: id } as never);
    return rec && rec.version > 0 ? rec : undefined;
  }, 15_000, 'the workflow’s first write');
}

/** A copy of a real intent's record under a new id, as a create leaves it before its workflow starts. */
async function strandedCopy(of: Record<string, unknown>, createdAt: Date, secretRef?: string) {
  const id = `pi_eu_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const { _id, ...rest } = of;
  await intents().insertOne({
    ...rest,
    _id: id,
    status: 'pending',
    version: 0,
    created_at: createdAt,
    idempotency_scope: `${m.tenant}:stranded:${id}`,
    ...(secretRef ? { legacy_webhooks: [{ url: 'https://shop.example/hooks', secretRef }] } : {}),
  } as never);
  return id;
}

async function sweep(olderThanSeconds: number) {
  return temporal.workflow.execute('strandedSweepWorkflow', {
    taskQueue: getStack().env.TEMPORAL_TASK_QUEUE ?? 'payments',
    workflowId: `stranded-sweep-test-${randomUUID()}`,
    args: [{ olderThanSeconds }],
  });
}

test('a version-0 intent without a workflow is taken back with its webhook secret; one whose workflow exists, and a fresh one, are left', async () => {
  const real = await createdIntent();
  const secretRef = `whs_eu_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  await secrets().insertOne({ _id: secretRef, tenant_id: m.tenant, secrets: ['whsec-stranded'], created_at: HOUR_AGO() } as never);
  const stranded = await strandedCopy(real, HOUR_AGO(), secretRef);
  const fresh = await strandedCopy(real, new Date());
  // The real intent's workflow exists, yet its first write has not landed (as while no worker runs).
  await intents().updateOne({ _id: real._id } as never, { $set: { version: 0, created_at: HOUR_AGO() } });

  // The API reads the stranded record as any pending intent until the sweep runs.
  expect((await api.get(`/v202607/payment-intents/${stranded}`, m.secretKey)).body.status).toBe('pending');

  const outcome = await sweep(60);
  expect(outcome.takenBack).toBeGreaterThanOrEqual(1);
  expect(outcome.kept).toBeGreaterThanOrEqual(1);
  expect(await intents().findOne({ _id: stranded } as never)).toBeNull();
  expect(await secrets().findOne({ _id: secretRef } as never)).toBeNull();
  expect(await intents().findOne({ _id: real._id } as never)).toMatchObject({ version: 0 });
  expect(await intents().findOne({ _id: fresh } as never)).toMatchObject({ version: 0 });
  expect((await api.get(`/v202607/payment-intents/${stranded}`, m.secretKey)).status).toBe(404);

  // A second run finds nothing more of this file's to take back.
  const again = await sweep(60);
  expect(again.named).not.toContain(stranded);
  expect(await intents().findOne({ _id: real._id } as never)).not.toBeNull();
  await intents().deleteOne({ _id: fresh } as never);
});

test('the worker made the sweep’s Schedule at start (every 5 minutes), and STRANDED_SWEEP_SCHEDULE=off deletes it', async () => {
  const { ensureStrandedSweepScheduleWith } = await import('../../worker/stranded-sweep-schedule');
  const { createLogger } = await import('../../platform/logger');
  const schedule = temporal.schedule.getHandle('stranded-records-sweep');
  const described = await schedule.describe();
  expect(described.spec.calendars).toEqual([expect.objectContaining({ minute: [{ start: 0, end: 59, step: 5 }] })]);
  expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'strandedSweepWorkflow', args: [{ olderThanSeconds: 300 }] });

  const logger = createLogger({ name: 'stranded-sweep-test', level: 'silent' });
  const config = { STRANDED_SWEEP_SCHEDULE: '*/5 * * * *', STRANDED_AFTER_SECONDS: 300, TEMPORAL_TASK_QUEUE: getStack().env.TEMPORAL_TASK_QUEUE ?? 'payments' };
  expect(await ensureStrandedSweepScheduleWith(temporal, { ...config, STRANDED_SWEEP_SCHEDULE: 'off' }, logger)).toBe('deleted');
  expect(await ensureStrandedSweepScheduleWith(temporal, { ...config, STRANDED_SWEEP_SCHEDULE: 'off' }, logger)).toBe('off');
  expect(await ensureStrandedSweepScheduleWith(temporal, config, logger)).toBe('created');
  expect(await ensureStrandedSweepScheduleWith(temporal, config, logger)).toBe('updated');
});
