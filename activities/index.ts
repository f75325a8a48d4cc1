import type { Mongo } from '../platform/mongo';
import type { Logger } from '../platform/logger';
import { createStoreActivities } from './store';
import { createGatewayActivities } from './gateway-calls';
import { createPayoutActivities } from './payouts';
import { createCommerceActivities, type ReturnRefundPort } from './commerce';
import { createCartActivities } from './carts';
import { createCouponRedemptionActivities } from './coupon-redemptions';
import { createTestClockActivities } from './test-clocks';
import { createBillingActivities, type InvoiceChargePort, type SessionPaymentPort } from './billing';
import type { GatewayRegistry } from '../gateways/registry';
import type { Registry } from 'prom-client';
import { createWebhookActivities, type WebhookActivityConfig } from './webhooks';
import { createReconciliationActivities } from './reconciliation';
import { createStrandedRecordActivities, type RedemptionGiveBackPort } from './stranded-records';
import type { SettlementReportSource } from '../gateways/sandbox-settlement';

export interface ActivityDeps {
  mongo: Mongo;
  gateways: GatewayRegistry;
  /** Base of the callback URLs gateways post to (GATEWAY_CALLBACK_BASE_URL, else PUBLIC_BASE_URL). */
  callbackBaseUrl: string;
  webhooks: WebhookActivityConfig;
  logger: Logger;
  registry: Registry;
  /** An invoice's charge, made by the API's intent and charge code (api/subscriptions/invoice-charges.ts). */
  invoiceCharges?: InvoiceChargePort;
  /** A received return's refund started by the API's code when its PUT could not (api/returns/refund-port.ts). */
  returnRefunds?: ReturnRefundPort;
  /** A billing page's paid intent finished on the session's side, by the API's code (api/checkout-sessions/payment-completions.ts). */
  sessionPayments?: SessionPaymentPort;
  /** A stranded subscription's coupon redemption given back, by the API's code (api/coupons/redeem.ts). */
  redemptionGiveBack?: RedemptionGiveBackPort;
  /** Settlement reports reconciliation reads (default: the sandbox's, at SANDBOX_URL). */
  settlementReports?: SettlementReportSource[];
}

/** Every activity, built from its dependencies; workflows import only the type. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createStoreActivities(deps),
    ...createGatewayActivities(deps),
    ...createPayoutActivities(deps),
    ...createCommerceActivities(deps),
    ...createWebhookActivities(deps),
    ...createCartActivities(deps),
    ...createCouponRedemptionActivities(deps),
    ...createTestClockActivities(deps),
    ...createBillingActivities(deps),
    ...createReconciliationActivities(deps),
    ...createStrandedRecordActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
