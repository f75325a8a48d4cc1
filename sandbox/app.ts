// The gateway sandbox: an HTTP service of ours that behaves like card and payout gateways (magic tokens,
// card numbers, amounts and bank accounts pick outcomes), so adapters make real HTTP calls with real latency
// and failures. State is in memory only (see store.ts); a restart forgets every token and effect.

import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import { adminRoutes } from './admin-routes';
import { CallbackSender } from './callbacks';
import type { SandboxDeps, SandboxLogger } from './deps';
import { gatewayRoutes } from './gateway-routes';
import { errorMiddleware } from './http-errors';
import { Scheduler } from './scheduler';
import { drillMiddleware, type SandboxSettings } from './settings';
import { settlementRoutes } from './settlement-routes';
import { SandboxStore } from './store';
import { threeDsRoutes } from './three-ds-routes';
import { tokenRoutes, tokensCors } from './token-routes';

export type { SandboxLogger } from './deps';

export interface SandboxOptions {
  /** Shared with the adapter that verifies callbacks. */
  callbackSecret: string;
  /** Base URL browsers use to reach the sandbox (3DS challenge URLs are built on it). */
  publicUrl: string;
  latencyMs?: number;
  failureRate?: number;
  /** Delay before async outcomes complete (async charges, refunds, slow payouts). Default 1000. */
  callbackDelayMs?: number;
  /** Pause between callback delivery attempts. Default 1000. */
  callbackRetryDelayMs?: number;
  /** Callback delivery attempts in all. Default 3. */
  callbackAttempts?: number;
  log?: SandboxLogger;
  /** Source of randomness for the failure-rate drill; injectable for tests. */
  random?: () => number;
}

export interface Sandbox {
  app: Koa;
  /** Stops timers, pending callbacks and never-answered requests. The HTTP server is the caller's to close. */
  close(): void;
  settings: SandboxSettings;
}

const silentLogger: SandboxLogger = { info() {}, warn() {}, error() {} };

export function createSandboxApp(opts: SandboxOptions): Sandbox {
  if (!opts.callbackSecret) throw new Error('createSandboxApp: callbackSecret is required');
  const publicUrl = new URL(opts.publicUrl).toString().replace(/\/+$/, '');
  const log = opts.log ?? silentLogger;
  const scheduler = new Scheduler();
  const settings: SandboxSettings = { latencyMs: opts.latencyMs ?? 0, failureRate: opts.failureRate ?? 0 };
  const callbacks = new CallbackSender({
    secret: opts.callbackSecret,
    scheduler,
    log,
    attempts: opts.callbackAttempts,
    retryDelayMs: opts.callbackRetryDelayMs,
  });
  const deps: SandboxDeps = {
    store: new SandboxStore(),
    scheduler,
    callbacks,
    settings,
    publicUrl,
    callbackDelayMs: opts.callbackDelayMs ?? 1000,
    log,
  };
  const drill = drillMiddleware(settings, scheduler, opts.random);

  const app = new Koa();
  app.use(errorMiddleware(log));
  app.use(async (ctx, next) => {
    const started = Date.now();
    await next();
    if (ctx.path !== '/healthz') {
      const status = ctx.respond === false ? 'unanswered' : ctx.status; // tok_timeout
      log.info({ method: ctx.method, path: ctx.path, status, ms: Date.now() - started }, 'request');
    }
  });
  app.use(tokensCors);
  app.use(bodyParser({ enableTypes: ['json', 'form'], jsonLimit: '100kb', formLimit: '16kb' }));
  for (const router of [gatewayRoutes(deps, drill), tokenRoutes(deps, drill), threeDsRoutes(deps), adminRoutes(deps), settlementRoutes(deps)]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }

  return {
    app,
    settings,
    close() {
      scheduler.close();
      callbacks.close();
    },
  };
}
