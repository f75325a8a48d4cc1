// The settlement report: every capture, refund and payout the gateway executed, as a gateway's daily report
// lists them, so the orchestrator can reconcile its ledger against the gateway's word. A capture is a
// succeeded charge (declines and open charges move no money); refunds and payouts are listed in every state.
// Test hooks (adjustments) change what the report says about an entry, or add an entry nobody asked for,
// without touching the underlying record: status queries by key keep answering the truth, exactly as a
// settlement file can disagree with the gateway's API.

import { z } from 'zod';
import type { SandboxStore } from './store';
import { newId } from './ids';
import type { ChargeStatus, PayoutStatus, RefundStatus } from './resources';

export const SETTLEMENT_OBJECTS = ['capture', 'refund', 'payout'] as const;
export type SettlementObject = (typeof SETTLEMENT_OBJECTS)[number];

export interface SettlementEntry {
  object: SettlementObject;
  /** The gateway's id (ch_, rf_, po_). */
  id: string;
  idempotencyKey: string;
  /** Our id as the caller gave it (pi_, re_, payout uuid), if any. */
  reference: string | null;
  amount: number;
  currency: string;
  status: ChargeStatus | RefundStatus | PayoutStatus;
  /** A refund's charge. */
  chargeId: string | null;
  /** When it happened at the gateway: a capture when it succeeded, a refund or payout when it was requested. */
  occurredAt: Date;
}

/** What a test planted about one real entry: left out of the report, or reported with another amount or status. */
export interface SettlementOverride {
  omit: boolean;
  amount?: number;
  status?: SettlementEntry['status'];
}

const STATUSES = ['succeeded', 'declined', 'requires_action', 'pending', 'rejected', 'canceled', 'failed'] as const;

export const settlementQuerySchema = z.strictObject({
  from: z.iso.datetime({ offset: true }),
  to: z.iso.datetime({ offset: true }),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
  /** The last entry id of the previous page. */
  starting_after: z.string().min(1).max(255).optional(),
});

export const overrideSchema = z
  .strictObject({
    omit: z.literal(true).optional(),
    amount: z.int().positive().optional(),
    status: z.enum(STATUSES).optional(),
  })
  .refine((o) => o.omit !== undefined || o.amount !== undefined || o.status !== undefined, {
    message: 'give omit, amount or status',
    path: ['omit'],
  });

export const phantomSchema = z.strictObject({
  object: z.enum(SETTLEMENT_OBJECTS),
  amount: z.int().positive(),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO 4217 code')
    .transform((c) => c.toUpperCase()),
  status: z.enum(STATUSES).default('succeeded'),
  reference: z.string().min(1).max(255).optional(),
  idempotency_key: z.string().min(1).max(255).optional(),
  charge_id: z.string().min(1).max(255).optional(),
  occurred_at: z.iso.datetime({ offset: true }).optional(),
});

/** Every entry of the report, adjustments applied, sorted by time then id (the report's page order). */
export function settlementEntries(store: SandboxStore): SettlementEntry[] {
  const real: SettlementEntry[] = [];
  for (const c of store.charges.values()) {
    if (c.status !== 'succeeded') continue;
    real.push({ object: 'capture', id: c.id, idempotencyKey: c.idempotencyKey, reference: c.reference ?? null, amount: c.amount, currency: c.currency, status: c.status, chargeId: null, occurredAt: c.updatedAt });
  }
  for (const r of store.refunds.values()) {
    real.push({ object: 'refund', id: r.id, idempotencyKey: r.idempotencyKey, reference: r.reference ?? null, amount: r.amount, currency: r.currency, status: r.status, chargeId: r.chargeId, occurredAt: r.createdAt });
  }
  for (const p of store.payouts.values()) {
    real.push({ object: 'payout', id: p.id, idempotencyKey: p.idempotencyKey, reference: p.reference ?? null, amount: p.amount, currency: p.currency, status: p.status, chargeId: null, occurredAt: p.createdAt });
  }
  const adjusted = real.flatMap((e) => {
    const o = store.settlementOverrides.get(e.id);
    if (!o) return [e];
    if (o.omit) return [];
    return [{ ...e, amount: o.amount ?? e.amount, status: o.status ?? e.status }];
  });
  return [...adjusted, ...store.phantomEntries].sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** One page of the report for [from, to). */
export function settlementPage(store: SandboxStore, q: z.output<typeof settlementQuerySchema>) {
  const from = Date.parse(q.from);
  const to = Date.parse(q.to);
  const inWindow = settlementEntries(store).filter((e) => e.occurredAt.getTime() >= from && e.occurredAt.getTime() < to);
  const start = q.starting_after === undefined ? 0 : inWindow.findIndex((e) => e.id === q.starting_after) + 1;
  const page = inWindow.slice(start, start + q.limit);
  return { object: 'list' as const, from: new Date(from).toISOString(), to: new Date(to).toISOString(), data: page.map(entryJson), has_more: start + q.limit < inWindow.length };
}

/** Whether a real record (capture, refund or payout) has this id: only those can be adjusted. */
export function isReportable(store: SandboxStore, id: string): boolean {
  const charge = store.charges.get(id);
  return (charge !== undefined && charge.status === 'succeeded') || store.refunds.has(id) || store.payouts.has(id);
}

export function phantomEntry(p: z.output<typeof phantomSchema>): SettlementEntry {
  const id = newId(p.object === 'capture' ? 'ch' : p.object === 'refund' ? 'rf' : 'po');
  return {
    object: p.object,
    id,
    idempotencyKey: p.idempotency_key ?? `phantom:${id}`,
    reference: p.reference ?? null,
    amount: p.amount,
    currency: p.currency,
    status: p.status,
    chargeId: p.charge_id ?? null,
    occurredAt: p.occurred_at ? new Date(p.occurred_at) : new Date(),
  };
}

export function entryJson(e: SettlementEntry) {
  return {
    object: e.object,
    id: e.id,
    idempotency_key: e.idempotencyKey,
    reference: e.reference,
    amount: e.amount,
    currency: e.currency,
    status: e.status,
    charge_id: e.chargeId,
    occurred_at: e.occurredAt.toISOString(),
  };
}
