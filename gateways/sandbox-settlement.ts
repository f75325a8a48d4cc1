// Reads the sandbox's settlement report (GET /v1/settlement-report), page by page, as reconciliation's view
// of what the gateway executed. Errors are plain exceptions: the activity that reads is retried whole, and a
// report read changes nothing at the gateway.

import { z } from 'zod';
import type { GatewayRow, ReconciledObject } from '../domain/reconciliation';

export interface SettlementReportSource {
  /** The gateway name our records carry (`sandbox`). */
  readonly gateway: string;
  /** One page of [from, to), in the report's order; `startingAfter` is the last id of the previous page. */
  page(window: { from: string; to: string }, startingAfter: string | undefined, limit: number): Promise<{ rows: GatewayRow[]; hasMore: boolean }>;
}

const entrySchema = z.object({
  object: z.enum(['capture', 'refund', 'payout']),
  id: z.string(),
  idempotency_key: z.string(),
  reference: z.string().nullable(),
  amount: z.number().int(),
  currency: z.string(),
  status: z.string(),
  charge_id: z.string().nullable(),
  occurred_at: z.string(),
});
const pageSchema = z.object({ data: z.array(entrySchema), has_more: z.boolean() });

export function sandboxSettlementReport(opts: { baseUrl: string; timeoutMs?: number }): SettlementReportSource {
  const base = opts.baseUrl.replace(/\/+$/, '');
  return {
    gateway: 'sandbox',
    async page(window, startingAfter, limit) {
      const q = new URLSearchParams({ from: window.from, to: window.to, limit: String(limit) });
      if (startingAfter) q.set('starting_after', startingAfter);
      const res = await fetch(`${base}/v1/settlement-report?${q}`, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000) });
      const text = await res.text();
      if (!res.ok) throw new Error(`sandbox settlement report answered ${res.status}: ${text.slice(0, 300)}`);
      const parsed = pageSchema.parse(JSON.parse(text));
      return {
        hasMore: parsed.has_more,
        rows: parsed.data.map((e) => ({
          object: e.object as ReconciledObject,
          gatewayId: e.id,
          idempotencyKey: e.idempotency_key,
          reference: e.reference,
          chargeId: e.charge_id,
          amount: e.amount,
          currency: e.currency,
          status: e.status,
          occurredAt: e.occurred_at,
        })),
      };
    },
  };
}
