import type { RouteDef } from './http/route';
import { adminRoutes } from './admin/routes';
import { callbackRoutes } from './callbacks/routes';
import { customerRoutes } from './customers/routes';
import { customerPaymentMethodRoutes } from './customers/payment-methods';
import { eventRoutes } from './events/routes';
import { healthRoutes } from './health/routes';
import { hostedPageRoutes } from './hosted/routes';
import { paymentIntentRoutes } from './payment-intents/routes';
import { paymentMethodRoutes } from './payment-methods/routes';
import { refundRoutes } from './refunds/routes';
import { olderRefundRoutes } from './older-refunds/routes';
import { payoutRoutes } from './payouts/routes';
import { payoutRecipientRoutes } from './payout-recipients/routes';
import { openApiRoutes } from './openapi/routes';
import { olderPaymentIntentRoutes } from './older-payment-intents/routes';
import { checkoutIntentRoutes } from './checkout-intents/routes';
import { cardsMitRoutes } from './cards-mit/routes';
import { catalogRoutes } from './catalog/routes';
import { catalogAdminRoutes } from './admin/catalog-routes';
import { cartRoutes } from './carts/routes';
import { commerceSettingsRoutes } from './admin/commerce-settings';
import { webhookSigningRoutes } from './admin/webhook-signing';
import { webhookEndpointRoutes } from './admin/webhook-endpoints';
import { checkoutRoutes } from './checkouts/routes';
import { returnRoutes } from './returns/routes';
import { planRoutes } from './plans/routes';
import { taxRateRoutes } from './tax-rates/routes';
import { couponRoutes } from './coupons/routes';
import { promotionCodeRoutes } from './promotion-codes/routes';
import { testClockRoutes } from './test-clocks/routes';
import { subscriptionRoutes } from './subscriptions/routes';
import { invoiceRoutes } from './invoices/routes';
import { creditNoteRoutes } from './credit-notes/routes';
import { checkoutSessionRoutes } from './checkout-sessions/routes';
import { billingPortalRoutes } from './billing-portal/routes';
import { reconciliationRoutes } from './admin/reconciliation';
import { operationsRoutes } from './admin/operations';

export function allRoutes(): RouteDef[] {
  const routes = [
    ...healthRoutes,
    ...adminRoutes,
    ...operationsRoutes,
    ...paymentIntentRoutes,
    ...customerRoutes,
    ...customerPaymentMethodRoutes,
    ...paymentMethodRoutes,
    ...refundRoutes,
    ...olderRefundRoutes,
    ...eventRoutes,
    ...payoutRoutes,
    ...payoutRecipientRoutes,
    ...olderPaymentIntentRoutes,
    ...checkoutIntentRoutes,
    ...cardsMitRoutes,
    ...catalogAdminRoutes,
    ...commerceSettingsRoutes,
    ...webhookSigningRoutes,
    ...webhookEndpointRoutes,
    ...reconciliationRoutes,
    ...catalogRoutes,
    ...cartRoutes,
    ...checkoutRoutes,
    ...returnRoutes,
    ...planRoutes,
    ...taxRateRoutes,
    ...couponRoutes,
    ...promotionCodeRoutes,
    ...testClockRoutes,
    ...subscriptionRoutes,
    ...invoiceRoutes,
    ...creditNoteRoutes,
    ...checkoutSessionRoutes,
    ...billingPortalRoutes,
    ...hostedPageRoutes,
    ...callbackRoutes,
  ];
  return [...routes, ...openApiRoutes(routes)];
}
