import type { RouteDef } from '../route';
import { adminRoutes } from './admin';
import { callbackRoutes } from './callbacks';
import { customerRoutes } from './customers';
import { eventRoutes } from './events';
import { healthRoutes } from './health';
import { hostedPageRoutes } from './hosted-page';
import { paymentIntentRoutes } from './payment-intents';
import { paymentMethodRoutes } from './payment-methods';
import { refundRoutes } from './refunds';
import { openApiRoutes } from './openapi';

export function allRoutes(): RouteDef[] {
  const routes = [
    ...healthRoutes,
    ...adminRoutes,
    ...paymentIntentRoutes,
    ...customerRoutes,
    ...paymentMethodRoutes,
    ...refundRoutes,
    ...eventRoutes,
    ...hostedPageRoutes,
    ...callbackRoutes,
  ];
  return [...routes, ...openApiRoutes(routes)];
}
