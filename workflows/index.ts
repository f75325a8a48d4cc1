// Every workflow the worker runs. The bundle is built from this file.
export { paymentIntentWorkflow } from './payment-intent';
export { refundWorkflow } from './refund';
export { webhookDeliveryWorkflow } from './webhook-delivery';
