// The gateways activities can use, by the name stored on a payment or payout. Adding a gateway means writing
// its adapter and registering it here.

import { ApplicationFailure } from '@temporalio/common';
import { SandboxGateway } from './sandbox-adapter';
import type { GatewayAdapter } from './types';

export interface GatewayRegistryConfig {
  sandboxUrl: string;
  sandboxCallbackSecret: string;
  /** Per gateway call; past it the call's outcome is unknown and reconciled by idempotency key. */
  timeoutMs?: number;
}

export interface GatewayRegistry {
  /** Throws a non-retryable failure for an unknown name: retrying cannot make a gateway appear. */
  get(name: string): GatewayAdapter;
  names(): string[];
}

export function createGatewayRegistry(config: GatewayRegistryConfig): GatewayRegistry {
  const adapters = new Map<string, GatewayAdapter>();
  const register = (adapter: GatewayAdapter) => adapters.set(adapter.name, adapter);

  register(new SandboxGateway({ baseUrl: config.sandboxUrl, callbackSecret: config.sandboxCallbackSecret, timeoutMs: config.timeoutMs }));

  return {
    get(name) {
      const adapter = adapters.get(name);
      if (!adapter) {
        throw ApplicationFailure.create({
          type: 'UnknownGateway',
          message: `Unknown gateway "${name}"; registered gateways: ${[...adapters.keys()].join(', ')}`,
          nonRetryable: true,
        });
      }
      return adapter;
    },
    names() {
      return [...adapters.keys()];
    },
  };
}
