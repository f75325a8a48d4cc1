import { ApplicationFailure } from '@temporalio/activity';
import type { Mongo } from '../platform/mongo';
import type { GatewayRegistry } from '../gateways/registry';
import type { PayoutOutcome } from '../gateways/types';
import { callbackUrl } from '../gateways/callback-url';
import { connectorData } from '../data/connectors';
import { payoutData } from '../data/payouts';
import { keyedEffect } from './gateway-calls';
import type { PayoutPatch } from '../platform/records';

export type { PayoutPatch } from '../platform/records';

// Activities of the payout workflow: its versioned record writes, and the transfer at the gateway the
// payout's connector names. The payout uuid is the idempotency key of every gateway call about it.

interface ConnectorRef {
  tenantId: string;
  connectorId: string;
}

export interface InitiatePayoutInput extends ConnectorRef {
  idempotencyKey: string;
  reference: string;
  amount: number;
  currency: string;
  gatewayRecipientId: string;
  narration: string | null;
}

export function createPayoutActivities({ mongo, gateways, callbackBaseUrl }: { mongo: Mongo; gateways: GatewayRegistry; callbackBaseUrl: string }) {
  const gatewayOf = async ({ tenantId, connectorId }: ConnectorRef) => {
    const connector = await connectorData(mongo).find(tenantId, connectorId);
    if (!connector) throw ApplicationFailure.nonRetryable(`connector ${connectorId} not found for tenant`, 'ConnectorMissing');
    return { adapter: gateways.get(connector.gateway), gateway: connector.gateway };
  };

  return {
    async savePayout(p: PayoutPatch): Promise<'applied' | 'stale'> {
      return payoutData(mongo).applyPatch(p);
    },

    /** Asks for the transfer; the gateway applies one transfer per idempotency key, however often asked. */
    async initiatePayout(req: InitiatePayoutInput): Promise<PayoutOutcome> {
      const { adapter, gateway } = await gatewayOf(req);
      // A refused retry asks by the key first: its first try may have made the transfer (keyedEffect).
      return keyedEffect(
        () =>
          adapter.payout({
            idempotencyKey: req.idempotencyKey,
            reference: req.reference,
            amount: req.amount,
            currency: req.currency,
            gatewayRecipientId: req.gatewayRecipientId,
            ...(req.narration ? { narration: req.narration } : {}),
            callbackUrl: callbackUrl(callbackBaseUrl, gateway, req.reference),
          }),
        () => adapter.findPayout(req.idempotencyKey),
      );
    },

    /** The gateway's word on the transfer made under our key; `not_found` when it has none. */
    async findPayout(req: ConnectorRef & { idempotencyKey: string }): Promise<PayoutOutcome | { status: 'not_found' }> {
      return (await (await gatewayOf(req)).adapter.findPayout(req.idempotencyKey)) ?? { status: 'not_found' };
    },

    /** Asks the gateway not to make the transfer; answers what it became (`canceled` when no money moves). */
    async cancelPayout(req: ConnectorRef & { idempotencyKey: string }): Promise<PayoutOutcome> {
      return (await gatewayOf(req)).adapter.cancelPayout(req.idempotencyKey);
    },
  };
}
