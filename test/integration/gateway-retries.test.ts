import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createGatewayActivities } from '../../activities/gateway-calls';
import { createPayoutActivities } from '../../activities/payouts';
import type { GatewayRegistry } from '../../gateways/registry';
import type { GatewayAdapter } from '../../gateways/types';
import { connectMongo, type Mongo } from '../../platform/mongo';
import { createMerchant, getStack, type Merchant } from './harness';

// A gateway that refuses a repeated key (a 409 "in progress", as some real gateways answer a retry whose first
// try is still being processed) instead of replaying the first answer. The sandbox replays, so the gateway
// here is a stand-in built for that one behaviour; the connector and the database are the stack's. A refused
// retry must ask by the key before anyone concludes there is no charge, refund or transfer.

let m: Merchant;
let db: Mongo;
beforeAll(async () => {
  [m, db] = await Promise.all([createMerchant(), connectMongo(getStack().mongoUri)]);
});
afterAll(async () => {
  await db?.close();
});

const inProgress = () => ApplicationFailure.nonRetryable('409: a request with this idempotency key is in progress', 'GatewayRequestRejected');

function registry(adapter: Partial<GatewayAdapter>): GatewayRegistry {
  return { get: () => adapter as GatewayAdapter, names: () => ['sandbox'] } as unknown as GatewayRegistry;
}

test('a charge, a refund and a transfer refused are found by their key when an earlier try made them', async () => {
  const adapter: Partial<GatewayAdapter> = {
    charge: async () => Promise.reject(inProgress()),
    findCharge: async () => ({ status: 'succeeded', chargeId: 'ch_first_try' }),
    refund: async () => Promise.reject(inProgress()),
    findRefund: async () => ({ status: 'pending', refundId: 'rf_first_try' }),
    payout: async () => Promise.reject(inProgress()),
    findPayout: async () => ({ status: 'pending', payoutId: 'po_first_try' }),
  };
  const gateways = registry(adapter);
  const cards = createGatewayActivities({ mongo: db, gateways, callbackBaseUrl: 'http://127.0.0.1:9' });
  const payouts = createPayoutActivities({ mongo: db, gateways, callbackBaseUrl: 'http://127.0.0.1:9' });
  const ref = { tenantId: m.tenant, connectorId: m.connector };
  const charge = { ...ref, token: 'tok_success', amount: 1000, currency: 'EUR', idempotencyKey: 'pi_eu_retry:attempt:1', returnUrl: 'https://shop.example/back', reference: 'pi_eu_retry' };
  const refund = { ...ref, chargeId: 'ch_first_try', amount: 500, currency: 'EUR', idempotencyKey: 're_eu_retry', reference: 're_eu_retry' };
  const payout = { ...ref, idempotencyKey: '6f1c3a52-2f0e-4b8e-9d7a-2b9f4f0e1c12', reference: '6f1c3a52-2f0e-4b8e-9d7a-2b9f4f0e1c12', amount: 5000, currency: 'NGN', gatewayRecipientId: 'rcp_1' };

  // A refused request, on a retry or on the workflow's new try alike: what the key finds is the answer.
  expect(await new MockActivityEnvironment({ attempt: 1 }).run(cards.charge, charge)).toEqual({ status: 'succeeded', chargeId: 'ch_first_try' });
  expect(await new MockActivityEnvironment({ attempt: 2 }).run(cards.charge, charge)).toEqual({ status: 'succeeded', chargeId: 'ch_first_try' });
  expect(await new MockActivityEnvironment({ attempt: 2 }).run(cards.refundCharge, refund)).toEqual({ status: 'pending', refundId: 'rf_first_try' });
  expect(await new MockActivityEnvironment({ attempt: 3 }).run(payouts.initiatePayout, payout as never)).toEqual({ status: 'pending', payoutId: 'po_first_try' });

  // Nothing under the key: the refusal stands (the gateway's word on a request it never executed).
  adapter.findCharge = async () => null;
  await expect(new MockActivityEnvironment({ attempt: 1 }).run(cards.charge, charge)).rejects.toMatchObject({ nonRetryable: true });
  await expect(new MockActivityEnvironment({ attempt: 2 }).run(cards.charge, charge)).rejects.toMatchObject({ nonRetryable: true });
});
