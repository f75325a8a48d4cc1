import type { CallbackSender } from './callbacks';
import type { Scheduler } from './scheduler';
import type { SandboxSettings } from './settings';
import type { SandboxStore } from './store';

export interface SandboxLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

/** What the route modules share; built once per sandbox app in app.ts. */
export interface SandboxDeps {
  store: SandboxStore;
  scheduler: Scheduler;
  callbacks: CallbackSender;
  settings: SandboxSettings;
  /** Base URL browsers use to reach the sandbox (3DS challenge pages), without a trailing slash. */
  publicUrl: string;
  /** Delay before asynchronous outcomes (async charges, refunds, slow payouts) complete. */
  callbackDelayMs: number;
  log: SandboxLogger;
}
