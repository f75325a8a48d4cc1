import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { createCodecServer } from '../../codec/server';
import { parseCodecOperators } from '../../platform/codec-operators';
import { parseCodecKeys, TenantPayloadCodec } from '../../platform/payload-codec';
import { attemptUpdate, intentStateQuery, PAYMENT_INTENT_WORKFLOW } from '../../workflows/payment-intent/messages';
import { getWorkflowBundle, useWorkflowTestEnv, waitFor } from './env';
import { intentFixtures } from './payment-intent-fixtures';

// PAYLOAD_CODEC on: a payment runs through a worker and a client that seal every payload per tenant. What
// Temporal stores holds no customer data in clear; the codec server (over HTTP on loopback, as the Temporal
// UI calls it) opens a payload for an operator of that tenant, leaves it sealed for another's, refuses no token.

const testEnv = useWorkflowTestEnv({ perTest: true });
const { recorders, input } = intentFixtures(testEnv);
const EMAIL = `ada.${Date.now()}@customer.example`;
const tokens = { nadia: 'n'.repeat(32), omar: 'o'.repeat(32) };
const UI = 'http://localhost:8233';

test('with the codec on, histories hold ciphertext, and the codec server opens them only for allowed operators', async () => {
  const codec = new TenantPayloadCodec(parseCodecKeys(`k1:${randomBytes(32).toString('base64')}`));
  const dataConverter = { payloadCodecs: [codec] };
  const { rec, activities } = recorders(async () => ({ status: 'succeeded', chargeId: 'ch_codec' }));
  const taskQueue = `codec-${Date.now()}`;
  const worker = await Worker.create({ connection: testEnv().nativeConnection, taskQueue, workflowBundle: getWorkflowBundle(), activities, dataConverter });
  const client = new Client({ connection: testEnv().connection, namespace: testEnv().namespace, dataConverter });
  const inp = await input(3600, { metadata: { email: EMAIL }, customer: 'cus_eu_codec' });

  let history!: temporal.api.history.v1.IHistory;
  await worker.runUntil(async () => {
    const handle = await client.workflow.start(PAYMENT_INTENT_WORKFLOW, { workflowId: inp.id, taskQueue, args: [inp] });
    // The codec is invisible to the code on both ends: the Update's answer and the query's come back decoded.
    const paid = await handle.executeUpdate(attemptUpdate, { args: [{ token: 'tok_success' }] });
    expect(paid).toMatchObject({ status: 'success' });
    expect(await handle.query(intentStateQuery)).toMatchObject({ status: 'success' });
    await waitFor(async () => rec.events.some((e) => e.type === 'payment.success'));
    // The activities got plain data too.
    expect(rec.patches.at(-1)).toMatchObject({ status: 'success' });
    history = await handle.fetchHistory();
    await handle.terminate('test done');
  });

  // What Temporal stores: the e-mail and customer nowhere in clear, the input sealed under the tenant.
  const stored = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
  expect(stored.includes(EMAIL)).toBe(false);
  expect(stored.includes('cus_eu_codec')).toBe(false);
  const started = history.events!.find((e) => e.workflowExecutionStartedEventAttributes)!.workflowExecutionStartedEventAttributes!;
  const sealed = started.input!.payloads![0]!;
  const meta = (k: string) => Buffer.from(sealed.metadata![k]!).toString();
  expect([meta('encoding'), meta('encryption-scope')]).toEqual(['binary/encrypted', `tenant:${inp.tenantId}`]);

  const server = createCodecServer({ codec, operators: parseCodecOperators(`nadia:${tokens.nadia}:${inp.tenantId},omar:${tokens.omar}:ten_eu_other`), corsOrigins: [UI] });
  const listener = server.listen(0, '127.0.0.1');
  await new Promise((r) => listener.once('listening', r));
  const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  const body = JSON.stringify({
    payloads: [{ metadata: Object.fromEntries(Object.entries(sealed.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')])), data: Buffer.from(sealed.data!).toString('base64') }],
  });
  const decode = (token?: string) =>
    fetch(`${base}/decode`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body });
  try {
    const forNadia = (await (await decode(tokens.nadia)).json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    expect(Buffer.from(forNadia.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    expect(JSON.parse(Buffer.from(forNadia.payloads[0]!.data, 'base64').toString())).toMatchObject({ id: inp.id, metadata: { email: EMAIL } });

    const forOmar = (await (await decode(tokens.omar)).json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    expect(Buffer.from(forOmar.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(forOmar.payloads[0]!.data, 'base64').includes(EMAIL)).toBe(false);

    const anonymous = await decode();
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { type: 'authentication_error', code: 'operator_token_invalid' } });

    // The UI's browser asks first (CORS preflight), from its own origin only.
    const preflight = await fetch(`${base}/decode`, { method: 'OPTIONS', headers: { origin: UI, 'access-control-request-method': 'POST' } });
    expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([204, UI]);
    const stranger = await fetch(`${base}/decode`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  } finally {
    await new Promise((r) => listener.close(r));
  }
});
