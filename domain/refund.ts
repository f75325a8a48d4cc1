// Refund lifecycle rules, pure.
export type RefundStatus = 'pending' | 'success' | 'canceled';

export const DEFAULT_REFUND_SLA_SECONDS = 259_200; // 3 days
/** A year: longer than any gateway's settlement, bounded so a typo does not park a refund for decades. */
export const MAX_REFUND_SLA_SECONDS = 365 * 24 * 3600;
/** After an SLA cancel, how long we keep listening for the gateway's late word, for operators. */
export const LATE_OUTCOME_WINDOW_SECONDS = 7 * 24 * 3600;

/** Polling fallback when no callback arrives: quick at first, then every 10 minutes. */
export function pollDelayMs(pollNumber: number): number {
  const steps = [2_000, 5_000, 15_000, 60_000, 300_000];
  return steps[pollNumber] ?? 600_000;
}
