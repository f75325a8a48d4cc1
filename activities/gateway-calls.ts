import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Mongo } from '../platform/mongo';
import type { ChargeAgreement, ChargeOutcome, GatewayAdapter, RefundOutcome } from '../gateways/types';
import type { GatewayRegistry } from '../gateways/registry';
import { callbackUrl } from '../gateways/callback-url';
import { chargeTokenData } from '../data/charge-tokens';
import { connectorData } from '../data/connectors';
import { customerData } from '../data/customers';
import { paymentMethodData } from '../data/payment-methods';
import { GATEWAY_UNREACHABLE } from '../gateways/sandbox-adapter';

// Activities that reach a payment gateway through its adapter. The connector (tenant-owned) names the
// gateway; a connector that vanished or belongs to another tenant is a non-retryable failure. The callback
// URL of each effect is built here, from the connector's gateway and the effect's reference.

/**
 * An effect made under our idempotency key (a charge, a refund, a transfer). A refusal proves nothing about the
 * key: an earlier try (a retry of this activity, or the workflow asking again after a lookup found nothing yet)
 * may have made the effect, and a gateway may refuse the same key again (a 409 "in progress", a validation of
 * the repeat) rather than replay it. So a refused request asks by the key, and answers what it finds; only when
 * the gateway has nothing is the refusal passed on (the workflow then takes it as "no effect").
 */
export async function keyedEffect<T>(make: () => Promise<T>, findByKey: () => Promise<T | null | undefined>): Promise<T> {
  try {
    return await make();
  } catch (err) {
    if (err instanceof ApplicationFailure && err.nonRetryable) {
      const found = await findByKey();
      if (found) return found;
    }
    throw err;
  }
}

/** The charge's refusal of a saved card detached after the API checked it: the attempt's failure code too (workflows/payment-intent/handlers.ts). */
const PAYMENT_METHOD_DETACHED = 'payment_method_detached';

interface ConnectorRef {
  tenantId: string;
  connectorId: string;
}

export function createGatewayActivities({ mongo, gateways, callbackBaseUrl }: { mongo: Mongo; gateways: GatewayRegistry; callbackBaseUrl: string }) {
  const gatewayOf = async ({ tenantId, connectorId }: ConnectorRef): Promise<{ adapter: GatewayAdapter; gateway: string }> => {
    const connector = await connectorData(mongo).find(tenantId, connectorId);
    if (!connector) throw ApplicationFailure.nonRetryable(`connector ${connectorId} not found for tenant`, 'ConnectorMissing');
    // A sandbox connector may be set up broken (down, timing out) for failover drills.
    return { adapter: gateways.get(connector.gateway, { sandboxBehavior: connector.sandbox_behavior ?? null }), gateway: connector.gateway };
  };
  const adapterFor = async (ref: ConnectorRef): Promise<GatewayAdapter> => (await gatewayOf(ref)).adapter;
  // Every charge answer returned from here enters a workflow's history: a saving charge's token is kept aside.
  const tokens = chargeTokenData(mongo);

  return {
    async charge(
      req: ConnectorRef & {
        token: string;
        amount: number;
        currency: string;
        idempotencyKey: string;
        returnUrl: string;
        reference: string;
        savePaymentMethod?: boolean;
        /** A saved card (`pm_...`) charged off-session: its reusable token is read here, never carried in history. */
        savedCard?: string;
        merchantInitiated?: boolean;
        agreement?: ChargeAgreement;
      },
    ): Promise<ChargeOutcome> {
      const { adapter, gateway } = await gatewayOf(req);
      const { savedCard, ...charge } = req;
      if (savedCard) {
        const card = await paymentMethodData(mongo).findAny(req.tenantId, savedCard);
        if (!card?.gateway_token) throw ApplicationFailure.nonRetryable(`saved card ${savedCard} has no gateway token`, 'NoGatewayToken');
        // Detached (or its customer deleted) after the API checked it, while the charge waited for the worker: not
        // charged. Only on the first try: a retry's first try may have reached the gateway, and its key finds it.
        if (Context.current().info.attempt === 1 && (card.detached_at || (card.customer && (await customerData(mongo).isDeleted(req.tenantId, card.customer)))))
          throw ApplicationFailure.nonRetryable(`saved card ${savedCard} was detached before it was charged`, PAYMENT_METHOD_DETACHED);
        charge.token = card.gateway_token;
      }
      try {
        const made = await keyedEffect(
          () => adapter.charge({ ...charge, callbackUrl: callbackUrl(callbackBaseUrl, gateway, req.reference) }),
          () => adapter.findCharge(req.idempotencyKey),
        );
        return await tokens.withoutToken(gateway, made, !savedCard);
      } catch (err) {
        // A refused connection on the first try means no request ever reached the gateway: the workflow may
        // try another connector at once. On a retry it proves nothing (the first try may have arrived).
        if (err instanceof ApplicationFailure && err.type === GATEWAY_UNREACHABLE && Context.current().info.attempt === 1)
          throw ApplicationFailure.nonRetryable(err.message, GATEWAY_UNREACHABLE);
        throw err;
      }
    },

    async chargeStatus(req: ConnectorRef & { chargeId: string }): Promise<ChargeOutcome> {
      const { adapter, gateway } = await gatewayOf(req);
      return tokens.withoutToken(gateway, await adapter.chargeStatus(req.chargeId));
    },

    /** The gateway's word on a charge by our idempotency key; `not_found` when it has no such charge. */
    async findCharge(req: ConnectorRef & { idempotencyKey: string }): Promise<ChargeOutcome | { status: 'not_found' }> {
      const { adapter, gateway } = await gatewayOf(req);
      const found = await adapter.findCharge(req.idempotencyKey);
      return found ? tokens.withoutToken(gateway, found) : { status: 'not_found' };
    },

    async findRefund(req: ConnectorRef & { idempotencyKey: string }): Promise<RefundOutcome | { status: 'not_found' }> {
      return (await (await adapterFor(req)).findRefund(req.idempotencyKey)) ?? { status: 'not_found' };
    },

    async cancelRefund(req: ConnectorRef & { idempotencyKey: string }): Promise<RefundOutcome> {
      return (await adapterFor(req)).cancelRefund(req.idempotencyKey);
    },

    /** Refunds (part of) a captured charge: merchant refunds, and voids of a charge that came too late. */
    async refundCharge(
      req: ConnectorRef & {
        chargeId: string;
        amount: number;
        currency: string;
        idempotencyKey: string;
        reference: string;
        /** A capture given back because nothing owns it (a late capture, a lost checkout claim): never saved as a card. */
        voidsCapture?: boolean;
      },
    ): Promise<RefundOutcome> {
      const { voidsCapture, ...refund } = req;
      const { adapter, gateway } = await gatewayOf(refund);
      // Its token's copy goes with it (a merchant's refund of a saving payment leaves it: the card may still be
      // being saved from it).
      if (voidsCapture) await tokens.drop(gateway, refund.chargeId, false);
      return keyedEffect(
        () => adapter.refund({ ...refund, callbackUrl: callbackUrl(callbackBaseUrl, gateway, refund.reference) }),
        () => adapter.findRefund(req.idempotencyKey),
      );
    },

    async refundStatus(req: ConnectorRef & { refundId: string }): Promise<RefundOutcome> {
      return (await adapterFor(req)).refundStatus(req.refundId);
    },
  };
}
