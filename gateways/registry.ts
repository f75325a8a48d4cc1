// The gateways activities can use, by the name stored on a payment or payout. Adding a gateway means writing
// its adapter and registering it here.

import { ApplicationFailure } from '@temporalio/common';
import { SandboxGateway, type SandboxBehavior } from './sandbox-adapter';
import type { GatewayAdapter } from './types';

export interface GatewayRegistryConfig {
  sandboxUrl: string;
  sandboxCallbackSecret: string;
  /** Per gateway call; past it the call's outcome is unknown and reconciled by idempotency key. */
  timeoutMs?: number;
  /** Where connectors with `sandboxBehavior: 'down'` send requests (default http://127.0.0.1:2: refused). */
  sandboxDownUrl?: string;
}

/** What of a connector picks its adapter: a sandbox connector may be a broken one, for failover drills. */
export interface ConnectorAdapterOptions {
  sandboxBehavior?: SandboxBehavior | null;
}

export interface GatewayRegistry {
  /**
   * The adapter for a gateway, as the connector configures it (`sandboxBehavior` only matters for the
   * sandbox; other gateways ignore it). Throws a non-retryable failure for an unknown name: retrying cannot
   * make a gateway appear.
   */
  get(name: string, connector?: ConnectorAdapterOptions): GatewayAdapter;
  names(): string[];
}

/** The registry every process builds from its configuration: the API and the worker call gateways alike. */
export function gatewaysOfConfig(config: { SANDBOX_URL: string; SANDBOX_CALLBACK_SECRET: string; GATEWAY_TIMEOUT_MS: number }): GatewayRegistry {
  return createGatewayRegistry({ sandboxUrl: config.SANDBOX_URL, sandboxCallbackSecret: config.SANDBOX_CALLBACK_SECRET, timeoutMs: config.GATEWAY_TIMEOUT_MS });
}

export function createGatewayRegistry(config: GatewayRegistryConfig): GatewayRegistry {
  /** Per gateway name: the adapter for a connector's options (adapters are cached by the factory). */
  const factories = new Map<string, (connector: ConnectorAdapterOptions) => GatewayAdapter>();

  const sandboxes = new Map<SandboxBehavior | 'working', SandboxGateway>();
  factories.set('sandbox', ({ sandboxBehavior }) => {
    const behavior = sandboxBehavior ?? undefined;
    if (behavior !== undefined && behavior !== 'down' && behavior !== 'timeout') {
      throw ApplicationFailure.create({
        type: 'UnknownSandboxBehavior',
        message: `Unknown sandboxBehavior "${String(behavior)}"; known: down, timeout`,
        nonRetryable: true,
      });
    }
    const cacheKey = behavior ?? 'working';
    let adapter = sandboxes.get(cacheKey);
    if (!adapter) {
      adapter = new SandboxGateway({
        baseUrl: config.sandboxUrl,
        callbackSecret: config.sandboxCallbackSecret,
        timeoutMs: config.timeoutMs,
        behavior,
        downUrl: config.sandboxDownUrl,
      });
      sandboxes.set(cacheKey, adapter);
    }
    return adapter;
  });

  return {
    get(name, connector = {}) {
      const factory = factories.get(name);
      if (!factory) {
        throw ApplicationFailure.create({
          type: 'UnknownGateway',
          message: `Unknown gateway "${name}"; registered gateways: ${[...factories.keys()].join(', ')}`,
          nonRetryable: true,
        });
      }
      return factory(connector);
    },
    names() {
      return [...factories.keys()];
    },
  };
}
