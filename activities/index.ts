import type { Mongo } from '../platform/mongo';
import type { Logger } from '../platform/logger';
import { createStoreActivities } from './store';
import { createGatewayActivities } from './gateway-calls';
import { createPayoutActivities } from './payouts';
import { createCommerceActivities } from './commerce';
import { createCartActivities } from './carts';
import type { GatewayRegistry } from '../gateways/registry';
import type { Registry } from 'prom-client';
import { createWebhookActivities, type WebhookActivityConfig } from './webhooks';

export interface ActivityDeps {
  mongo: Mongo;
  gateways: GatewayRegistry;
  /** Base of the callback URLs gateways post to (GATEWAY_CALLBACK_BASE_URL, else PUBLIC_BASE_URL). */
  callbackBaseUrl: string;
  webhooks: WebhookActivityConfig;
  logger: Logger;
  registry: Registry;
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
  };
}

export type Activities = ReturnType<typeof createActivities>;
