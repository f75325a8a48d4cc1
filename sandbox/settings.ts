// Drill knobs: latency added to every gateway call and a rate of injected 503s. The 503 happens before the
// handler runs, so an injected failure never records an effect (the caller may safely retry).

import type { Context, Next } from 'koa';
import { z } from 'zod';
import { unavailable } from './http-errors';
import type { Scheduler } from './scheduler';

export interface SandboxSettings {
  latencyMs: number;
  failureRate: number; // 0..1
}

export const settingsUpdateSchema = z.strictObject({
  latency_ms: z.int().min(0).max(120_000).optional(),
  failure_rate: z.number().min(0).max(1).optional(),
});

export function settingsJson(s: SandboxSettings) {
  return { latency_ms: s.latencyMs, failure_rate: s.failureRate };
}

export function drillMiddleware(settings: SandboxSettings, scheduler: Scheduler, random: () => number = Math.random) {
  return async (ctx: Context, next: Next) => {
    if (ctx.method === 'OPTIONS') return next(); // CORS preflights are answered by the browser's stack, not the gateway
    await scheduler.sleep(settings.latencyMs).catch(() => {
      throw unavailable('The sandbox is shutting down.');
    });
    if (settings.failureRate > 0 && random() < settings.failureRate) {
      throw unavailable('Injected failure (failure_rate drill); no effect was recorded.');
    }
    await next();
  };
}
