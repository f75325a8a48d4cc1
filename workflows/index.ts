// Every workflow the worker runs. The bundle is built from this file.
export { paymentIntentWorkflow } from './payment-intent/workflow';
export { refundWorkflow } from './refund/workflow';
export { webhookDeliveryWorkflow } from './webhook-delivery/workflow';
export { payoutWorkflow } from './payout/workflow';
export { cartRetentionWorkflow } from './cart-retention/workflow';
export { productStockWorkflow } from './product-stock/workflow';
export { checkoutWorkflow } from './checkout/workflow';
export { returnWorkflow } from './return/workflow';
export { couponRedemptionsWorkflow } from './coupon-redemptions/workflow';
export { testClockWorkflow } from './test-clock/workflow';
export { subscriptionWorkflow } from './subscription/workflow';
export { customerBalanceWorkflow } from './customer-balance/workflow';
export { reconciliationWorkflow } from './reconciliation/workflow';
export { strandedSweepWorkflow } from './stranded-sweep/workflow';
