// Shared so each sandbox or adapter test file sets up its sandbox and callback receiver in one line, not a hook block.

import type { ChargeRequest } from '../../../gateways/types';
import type { SandboxOptions } from '../../../sandbox/app';
import { type CallbackReceiver, type Harness, key, RETURN_URL, startCallbackReceiver, startSandbox } from './sandbox-harness';

export interface SandboxSuiteOptions {
  /** Passed to createSandboxApp over the harness defaults (a logger, latency, callback delays, ...). */
  sandbox?: Partial<SandboxOptions>;
  /** Also start a callback receiver answering 200 to every callback (default true). */
  receiver?: boolean;
  /** 'file' (default): one sandbox for all tests of the file or describe block; 'test': a fresh one per test. */
  per?: 'file' | 'test';
}

export interface SandboxSuite {
  /** The running sandbox: usable inside tests and hooks, once the hooks registered here have started it. */
  h: Harness;
  /** The running callback receiver (unless `receiver: false`). */
  receiver: CallbackReceiver;
  /** An EUR 25.00 charge request with fresh idempotency key and reference, calling back to the receiver. */
  chargeRequest(token: string, overrides?: Partial<ChargeRequest>): ChargeRequest;
  /** Submits a 3DS challenge page's form as the cardholder's browser would, on the listening address. */
  submitChallenge(challengeUrl: string, action: string): Promise<Response>;
}

/** Registers the hooks in the current file or describe block; call it at the top level of either. */
export function useSandbox({ sandbox = {}, receiver: withReceiver = true, per = 'file' }: SandboxSuiteOptions = {}): SandboxSuite {
  let current: Harness | undefined;
  let currentReceiver: CallbackReceiver | undefined;
  const [before, after] = per === 'file' ? [beforeAll, afterAll] : [beforeEach, afterEach];
  before(async () => {
    current = await startSandbox(sandbox);
    if (withReceiver) currentReceiver = await startCallbackReceiver();
  });
  after(async () => {
    await current?.stop();
    await currentReceiver?.stop();
    current = currentReceiver = undefined;
  });
  const h = late('the sandbox', () => current);
  const receiver = late('the callback receiver', () => currentReceiver);
  return {
    h,
    receiver,
    chargeRequest(token, overrides = {}) {
      const reference = `pi_eu_${key('ref')}`;
      return {
        idempotencyKey: key(token),
        token,
        amount: 2500,
        currency: 'EUR',
        callbackUrl: receiver.url(reference),
        returnUrl: RETURN_URL,
        reference,
        ...overrides,
      };
    },
    // The challenge URL is on the sandbox's public URL, which does not listen: the same path on baseUrl does.
    submitChallenge: (challengeUrl, action) =>
      fetch(`${h.baseUrl}${new URL(challengeUrl).pathname}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ action }).toString(),
      }),
  };
}

/** Stands for an object that exists only while the hooks have it running, so a file can name it up front. */
function late<T extends object>(what: string, get: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_placeholder, property) {
      const target = get();
      if (target === undefined) throw new Error(`${what} is not running here: use it inside tests and hooks`);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
