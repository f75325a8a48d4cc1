// Task queue names workflows and workers share. Pure and import-free, so workflow code may use it (it is
// replayed) and the worker polls exactly the queues workflows send to.

/**
 * The queue a gateway's calls (charge, refund, status questions) go to: `<payments queue>-gateway-<name>`,
 * e.g. `payments-gateway-sandbox`. Each has its own server-side rate limit (GATEWAY_RATE_LIMITS), so one
 * gateway's limit never slows another gateway or the MongoDB writes on the payments queue. Every worker that
 * polls the payments queue polls these too (worker/worker-options.ts).
 */
export function gatewayTaskQueue(paymentsQueue: string, gateway: string): string {
  if (!/^[a-z][a-z0-9_-]{0,39}$/.test(gateway)) throw new TypeError(`"${gateway}" is not a gateway name`);
  return `${paymentsQueue}-gateway-${gateway}`;
}
