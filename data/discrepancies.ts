import type { Filter } from 'mongodb';
import { invalidRequest } from '../domain/errors';
import type { LedgerRow } from '../domain/reconciliation';
import { parseId } from '../platform/ids';
import { isDuplicateKeyError, type Mongo } from '../platform/mongo';
import type { DiscrepancyRecord, ReconciliationRecheckRecord } from '../platform/ops-records';
import type { PaymentIntentRecord, PayoutRecord, RefundRecord } from '../platform/records';

// Reconciliation's data: the discrepancies it opens (operators list and resolve them across tenants, so
// these reads are not tenant-scoped: only the admin API and the reconciliation activity use them), and the
// ledger side of a window, read in bounded pages in (time, _id) order across every tenant.

export interface DiscrepancyFilter {
  tenant_id?: string;
  status?: DiscrepancyRecord['status'];
  kind?: DiscrepancyRecord['kind'];
  run_id?: string;
}

/** Where a page of a window ends: the next page starts strictly after it. */
export interface LedgerCursor {
  at: Date;
  id: string;
}

export function discrepancyData(mongo: Mongo) {
  const c = mongo.c.discrepancies;
  return {
    /**
     * Opens a discrepancy unless one with its key exists (the unique index is the guard: FerretDB drops null
     * fields from an upsert's $setOnInsert, so it is an insert and a duplicate-key catch). Answers the
     * record that holds the key and whether this call made it.
     */
    open: async (record: DiscrepancyRecord): Promise<{ record: DiscrepancyRecord; created: boolean }> => {
      try {
        await c.insertOne(record);
        return { record, created: true };
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        const held = await c.findOne({ discrepancy_key: record.discrepancy_key });
        if (!held) throw err;
        return { record: held, created: false };
      }
    },
    setEvent: (id: string, eventId: string) => c.updateOne({ _id: id }, { $set: { event_id: eventId } }),
    byKey: (key: string) => c.findOne({ discrepancy_key: key }),
    find: (id: string) => c.findOne({ _id: id }),
    /** Newest first, `starting_after` a discrepancy id; one extra row tells whether there is more. */
    list: async (filter: DiscrepancyFilter, page: { limit: number; starting_after?: string }) => {
      const clauses: Filter<DiscrepancyRecord>[] = [Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)) as Filter<DiscrepancyRecord>];
      if (page.starting_after !== undefined) {
        const cursor = await c.findOne({ _id: page.starting_after }, { projection: { _id: 1, created_at: 1 } });
        if (!cursor) throw invalidRequest('resource_missing', `No such discrepancy: '${page.starting_after}'`, 'starting_after');
        clauses.push({ $or: [{ created_at: { $lt: cursor.created_at } }, { created_at: cursor.created_at, _id: { $lt: cursor._id } }] });
      }
      const rows = await c
        .find(clauses.length === 1 ? clauses[0]! : { $and: clauses })
        .sort({ created_at: -1, _id: -1 })
        .limit(page.limit + 1)
        .toArray();
      return { data: rows.slice(0, page.limit), has_more: rows.length > page.limit };
    },
    /**
     * A status mismatch of one row, opened while a side was still pending, resolved by reconciliation itself
     * once both sides settled alike (an operator's resolution stands). Answers whether one was resolved.
     */
    settleStatusMismatch: async (key: string, why: string): Promise<boolean> => {
      const now = new Date();
      const r = await c.updateOne({ discrepancy_key: key, status: 'open' }, { $set: { status: 'resolved', resolution: { operator: 'reconciliation', reason: why, at: now }, updated_at: now } });
      return r.modifiedCount === 1;
    },
    /** open -> resolved, once: answers the record after the call, or null for an unknown id. */
    resolve: async (id: string, by: { operator: string; reason: string }): Promise<{ record: DiscrepancyRecord; changed: boolean } | null> => {
      const now = new Date();
      const updated = await c.updateOne({ _id: id, status: 'open' }, { $set: { status: 'resolved', resolution: { operator: by.operator, reason: by.reason, at: now }, updated_at: now } });
      const record = await c.findOne({ _id: id });
      return record ? { record, changed: updated.modifiedCount === 1 } : null;
    },
  };
}

/** The rows later runs read again (platform/ops-records.ts ReconciliationRecheckRecord). */
export function recheckData(mongo: Mongo) {
  const c = mongo.c.reconciliationRechecks;
  return {
    /** Kept once: a re-run of the window (or a retried activity) finds it kept and changes nothing. */
    keep: async (record: ReconciliationRecheckRecord): Promise<void> => {
      try {
        await c.insertOne(record);
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    },
    /** One gateway's rows of one object type, the oldest windows first, at most `limit`. */
    due: (gateway: string, object: ReconciliationRecheckRecord['object_type'], limit: number) =>
      c.find({ gateway, object_type: object }).sort({ window_from: 1, _id: 1 }).limit(limit).toArray(),
    /**
     * Compared for good by a run: kept, marked with the run, until another run drops it. A retried attempt of
     * the same run compares it again, so the findings it opened still count as the run's.
     */
    markDone: (id: string, runId: string) => c.updateOne({ _id: id }, { $set: { done_by: runId } }),
    drop: (id: string) => c.deleteOne({ _id: id }),
  };
}

/** Strictly after `after` in (field, _id) order, inside [from, to). */
function windowPage(field: string, w: { from: Date; to: Date }, after: LedgerCursor | undefined): Record<string, unknown> {
  const inWindow = { [field]: { $gte: w.from, $lt: w.to } };
  if (!after) return inWindow;
  return { $and: [inWindow, { $or: [{ [field]: { $gt: after.at } }, { [field]: after.at, _id: { $gt: after.id } }] }] };
}

export function ledgerData(mongo: Mongo) {
  const { paymentIntents, refunds, payouts } = mongo.c;
  return {
    /** Intents paid in the window (each one capture), by when they succeeded. */
    captures: async (w: { from: Date; to: Date }, after: LedgerCursor | undefined, limit: number) => {
      const rows = await paymentIntents
        .find({ $and: [{ status: 'success' }, windowPage('succeeded_at', w, after)] } as Filter<PaymentIntentRecord>, {
          projection: { _id: 1, tenant_id: 1, status: 1, amount: 1, amount_paid: 1, currency: 1, gateway_charge_id: 1, succeeded_at: 1 },
        })
        .sort({ succeeded_at: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return rows.map((r) => ({ row: captureRow(r), cursor: { at: r.succeeded_at!, id: r._id } }));
    },
    /** Refunds asked for in the window, by creation. */
    refunds: async (w: { from: Date; to: Date }, after: LedgerCursor | undefined, limit: number) => {
      const rows = await refunds
        .find(windowPage('created_at', w, after) as Filter<RefundRecord>, { projection: { _id: 1, tenant_id: 1, status: 1, cancel_unconfirmed: 1, amount: 1, currency: 1, gateway_transaction_id: 1, created_at: 1 } })
        .sort({ created_at: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return rows.map((r) => ({ row: refundRow(r), cursor: { at: r.created_at, id: r._id } }));
    },
    /** Payouts of one gateway asked for in the window, by creation. */
    payouts: async (gateway: string, w: { from: Date; to: Date }, after: LedgerCursor | undefined, limit: number) => {
      const rows = await payouts
        .find({ $and: [{ gateway }, windowPage('created_at', w, after)] } as Filter<PayoutRecord>, {
          projection: { _id: 1, tenant_id: 1, status: 1, amount: 1, currency: 1, gateway_payout_id: 1, created_at: 1 },
        })
        .sort({ created_at: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return rows.map((r) => ({ row: payoutRow(r), cursor: { at: r.created_at, id: r._id } }));
    },
    // Point lookups for report entries the window's rows did not claim (a few per run).
    intent: (id: string) =>
      paymentIntents.findOne({ _id: id }, { projection: { _id: 1, tenant_id: 1, status: 1, amount: 1, amount_paid: 1, currency: 1, gateway_charge_id: 1, voided_charges: 1 } }) as Promise<
        (PaymentIntentRecord & { voided_charges?: { charge_id: string; outcome: string }[] }) | null
      >,
    intentByCharge: (chargeId: string) =>
      paymentIntents.findOne({ gateway_charge_id: chargeId }, { projection: { _id: 1, tenant_id: 1, status: 1, amount: 1, amount_paid: 1, currency: 1, gateway_charge_id: 1 } }),
    refund: (id: string) => refunds.findOne({ _id: id }, { projection: { _id: 1, tenant_id: 1, status: 1, cancel_unconfirmed: 1, amount: 1, currency: 1, gateway_transaction_id: 1 } }),
    payout: (id: string) => payouts.findOne({ _id: id }, { projection: { _id: 1, tenant_id: 1, status: 1, amount: 1, currency: 1, gateway_payout_id: 1 } }),
  };
}

export function captureRow(r: Pick<PaymentIntentRecord, '_id' | 'tenant_id' | 'status' | 'amount' | 'amount_paid' | 'currency' | 'gateway_charge_id'>): LedgerRow {
  // An intent paid without a recorded charge id cannot be paired: its id stands in, so it shows as missing.
  const chargeId = r.gateway_charge_id ?? null;
  return { object: 'capture', ourId: r._id, tenantId: r.tenant_id, gatewayId: chargeId, matchKey: chargeId ?? r._id, amount: r.amount_paid ?? r.amount, currency: r.currency, status: r.status };
}

export function refundRow(r: Pick<RefundRecord, '_id' | 'tenant_id' | 'status' | 'cancel_unconfirmed' | 'amount' | 'currency' | 'gateway_transaction_id'>): LedgerRow {
  // Canceled at its SLA but not confirmed by the gateway: its money may still go out, so it is still pending.
  const status = r.status === 'canceled' && r.cancel_unconfirmed === true ? 'pending' : r.status;
  return { object: 'refund', ourId: r._id, tenantId: r.tenant_id, gatewayId: r.gateway_transaction_id, matchKey: r._id, amount: r.amount, currency: r.currency, status };
}

/**
 * The refund an intent made of a capture it did not own (its void, under key `<pi>:void:<n>`), as our side has it:
 * done (`success`) since the gateway accepted it. Only the report can say it failed or never settled.
 */
export function voidRefundRow(intent: Pick<PaymentIntentRecord, 'tenant_id' | 'amount' | 'currency'>, voidKey: string, gatewayId: string | null): LedgerRow {
  return { object: 'refund', ourId: voidKey, tenantId: intent.tenant_id, gatewayId, matchKey: voidKey, amount: intent.amount, currency: intent.currency, status: 'success' };
}

export function payoutRow(r: Pick<PayoutRecord, '_id' | 'tenant_id' | 'status' | 'amount' | 'currency' | 'gateway_payout_id'>): LedgerRow {
  return { object: 'payout', ourId: r._id, tenantId: r.tenant_id, gatewayId: r.gateway_payout_id, matchKey: r._id, amount: r.amount, currency: r.currency, status: r.status };
}

/** `dsc_eu_X` -> `evt_eu_X`: one event per discrepancy, whatever retries. */
export function eventIdOf(discrepancyId: string): string {
  const p = parseId(discrepancyId);
  return p ? `evt_${p.region}_${p.opaque}` : `evt_${discrepancyId}`;
}

/** A discrepancy as the admin API and its event show it. */
export function discrepancyJson(d: DiscrepancyRecord) {
  return {
    id: d._id,
    object: 'discrepancy' as const,
    kind: d.kind,
    object_type: d.object_type,
    our_id: d.our_id,
    gateway: d.gateway,
    gateway_id: d.gateway_id,
    reference: d.reference,
    tenant: d.tenant_id,
    ours: d.ours,
    gateway_side: d.theirs,
    run_id: d.run_id,
    window: { from: d.window.from.toISOString(), to: d.window.to.toISOString() },
    status: d.status,
    event: d.event_id,
    resolution: d.resolution ? { operator: d.resolution.operator, reason: d.resolution.reason, resolved_at: d.resolution.at.toISOString() } : null,
    created_at: d.created_at.toISOString(),
  };
}
