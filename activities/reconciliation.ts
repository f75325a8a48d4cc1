import { Context } from '@temporalio/activity';
import { captureRow, discrepancyData, discrepancyJson, eventIdOf, ledgerData, payoutRow, recheckData, refundRow, voidRefundRow, type LedgerCursor } from '../data/discrepancies';
import { workflowRecordData } from '../data/workflow-records';
import {
  comparePair,
  discrepancyKey,
  gatewayMatchKey,
  ledgerMoneyState,
  RECHECK_AT_MOST_MS,
  RECHECK_FOR_MS,
  undecided,
  unpairedLedgerRow,
  SettlementMatcher,
  gatewayMoneyState,
  unpairedGatewayRow,
  zeroCounts,
  type Finding,
  type GatewayRow,
  type LedgerRow,
  type ReconciledObject,
  type ReconcileObjectResult,
} from '../domain/reconciliation';

export type { ReconcileObjectResult } from '../domain/reconciliation';
import type { SettlementReportSource } from '../gateways/sandbox-settlement';
import { newId, parseId } from '../platform/ids';
import type { Logger } from '../platform/logger';
import type { Mongo } from '../platform/mongo';
import type { DiscrepancyRecord, ReconciliationRecheckRecord } from '../platform/ops-records';

// Reconciliation of one object type over one window: the gateway's settlement report (with a margin) is read
// into memory, our rows are streamed in pages of PAGE (2,000: FerretDB sorts a window in memory per query, so fewer, larger pages cost far less) and paired with it, and every finding is written at
// once (a discrepancy record unique by key, a tenant-scoped event, an operator log line). Only counts and a
// few ids go back to the workflow, so a window of many thousands of rows never enters its history. A retried
// activity repeats the run safely: the unique key and the event id derived from the discrepancy's make every
// write idempotent.

const PAGE = 2000;
/** Ids of newly opened discrepancies a result carries (the rest are counted). */
const SAMPLE = 20;

export const DISCREPANCY_EVENT = 'discrepancy.opened';

export interface ReconcileObjectInput {
  /** The run's workflow id, kept on every discrepancy it opens. */
  runId: string;
  /** Region of ids made for discrepancies nothing of ours names (the deployment's default region). */
  region: string;
  from: string; // ISO 8601
  to: string;
  object: ReconciledObject;
  /** How far outside the window report entries are read, to pair rows the two sides stamp at different moments. */
  graceSeconds: number;
}

export interface ReconciliationDeps {
  mongo: Mongo;
  logger: Logger;
  /** The gateways whose settlement reports are read (the worker wires the sandbox's). */
  settlementReports?: SettlementReportSource[];
}

/**
 * How far either side of the window the report is read for rows of ours it does not hold in its margin: a few
 * hours covers an outage's catch-up and a charge found by its hourly poll, without reading days of report.
 */
const LOOK_FURTHER_MS = 3 * 3600 * 1000;
/** Rows looked for further out in one run; past it (the gateway lost a day), each is called missing at once. */
const MAX_LOOKED_FURTHER = 10_000;

/** Rows of earlier windows read again in one run, per object type (the oldest windows first). */
const MAX_RECHECKED = 10_000;

const VOID_KEY = /^(pi_[a-z]{2,8}_[0-9A-Za-z]{8,64}):void:\d+$/;

export function createReconciliationActivities(deps: ReconciliationDeps) {
  const reportOf = (): SettlementReportSource => {
    const source = deps.settlementReports?.[0];
    // Not retried into success: a worker started without a report source is a deployment mistake.
    if (!source) throw new Error('No settlement report source is configured for this worker (worker/main.ts wires the sandbox\'s)');
    return source;
  };

  return {
    async reconcileObject(input: ReconcileObjectInput): Promise<ReconcileObjectResult> {
      const report = reportOf();
      const ledger = ledgerData(deps.mongo);
      const discrepancies = discrepancyData(deps.mongo);
      const events = workflowRecordData(deps.mongo);
      const window = { from: input.from, to: input.to };
      const matcher = new SettlementMatcher(input.object, window);
      const result: ReconcileObjectResult = { object: input.object, ledgerRows: 0, reportRows: 0, matched: 0, opened: zeroCounts(), alreadyOpen: 0, sample: [] };
      const heartbeat = (detail: string) => {
        try {
          Context.current().heartbeat(detail);
        } catch {
          /* called outside an activity (tests) */
        }
      };

      // The report of the window and its margin.
      const grace = input.graceSeconds * 1000;
      for await (const rows of reportPages(report, widened(input, grace), input.object)) {
        for (const row of rows) matcher.addGateway(row);
        result.reportRows += rows.length;
        heartbeat(`report: ${result.reportRows} ${input.object} entries`);
      }

      const record = async (f: Finding): Promise<DiscrepancyRecord> => {
        // A row a recheck compared for good has its mismatch under the settled key; a re-run of the row's window,
        // comparing it final on both sides, finds that one rather than opening it again.
        if (f.kind === 'status_mismatch' && !f.settled && f.ours && f.gateway && ledgerMoneyState(f.ours.status) !== 'pending' && gatewayMoneyState(f.gateway.status) !== 'pending') {
          const settled = await discrepancies.byKey(discrepancyKey({ ...f, settled: true }));
          if (settled) {
            result.alreadyOpen += 1;
            return settled;
          }
        }
        const opened = await openDiscrepancy(f);
        // One this run opened in an earlier attempt (the worker died before its result reached Temporal) is still
        // this run's: counted as opened, so the run does not end `clean`.
        if (opened.created || opened.record.run_id === input.runId) {
          result.opened[f.kind] += 1;
          if (result.sample.length < SAMPLE) result.sample.push({ id: opened.record._id, kind: f.kind, ourId: f.ourId, gatewayId: f.gatewayId });
        } else result.alreadyOpen += 1;
        return opened.record;
      };

      const openDiscrepancy = async (f: Finding) => {
        const now = new Date();
        const region = regionOf(f.tenantId) ?? input.region;
        const candidate: DiscrepancyRecord = {
          _id: newId('dsc', region),
          discrepancy_key: discrepancyKey(f),
          kind: f.kind,
          object_type: f.object,
          our_id: f.ourId,
          gateway: report.gateway,
          gateway_id: f.gatewayId,
          reference: f.reference,
          tenant_id: f.tenantId,
          ours: f.ours,
          theirs: f.gateway,
          run_id: input.runId,
          window: { from: new Date(input.from), to: new Date(input.to) },
          status: 'open',
          event_id: null,
          resolution: null,
          created_at: now,
          updated_at: now,
        };
        const opened = await discrepancies.open(candidate);
        const held = opened.record;
        if (opened.created) {
          // The operator's line: one per discrepancy, at warn, with what differs.
          deps.logger.warn(
            { discrepancy: held._id, kind: held.kind, object: held.object_type, our_id: held.our_id, gateway_id: held.gateway_id, tenant: held.tenant_id, ours: held.ours, theirs: held.theirs, run: input.runId },
            'reconciliation: discrepancy opened',
          );
        }
        // The event, also when an earlier try opened the record but stopped before it: its id is derived
        // from the discrepancy's, so it is written once whatever retries.
        if (held.tenant_id && held.event_id === null) {
          const eventId = eventIdOf(held._id);
          const data = { ...discrepancyJson(held), event: eventId };
          const createdAt = held.created_at.toISOString();
          await events.insertEvent({
            _id: eventId,
            tenant_id: held.tenant_id,
            type: DISCREPANCY_EVENT,
            created_at: held.created_at,
            data,
            object_id: held._id,
            body: JSON.stringify({ id: eventId, type: DISCREPANCY_EVENT, created_at: createdAt, data }),
            format: 'envelope',
            source: { kind: held.object_type === 'capture' ? 'payment_intent' : held.object_type, id: held.our_id ?? held.reference ?? held.gateway_id ?? held._id },
            endpoints: [],
          });
          await discrepancies.setEvent(held._id, eventId);
        }
        return opened;
      };

      // A row with a side still pending is compared as it stands now, and again by later runs once both sides are final.
      const rechecks = recheckData(deps.mongo);
      /** Rows left for a later run (this window's and earlier ones'), counted once whichever pass saw them. */
      const awaiting = new Set<string>();
      const noteIfUndecided = async (ours: LedgerRow, g: GatewayRow | undefined) => {
        if (!undecided(ours, g)) return;
        const to = new Date(input.to);
        const id = recheckId(ours);
        await rechecks.keep({
          _id: id,
          gateway: report.gateway,
          object_type: ours.object,
          our_id: ours.ourId,
          match_key: ours.matchKey,
          tenant_id: ours.tenantId,
          window_from: new Date(input.from),
          window_to: to,
          recheck_until: new Date(to.getTime() + RECHECK_FOR_MS),
          created_at: new Date(),
        });
        awaiting.add(id);
      };

      // First, rows earlier runs left undecided: the report of their window is read again (with the margin and
      // the further look) and, once neither side is pending, the pair is compared; its status mismatch is its
      // own discrepancy (`settled`), and one opened while a side was pending is resolved. Those this pass
      // compares are not compared again below, should this window hold them too.
      /** Rows this pass compared for good (counted as `rechecked`). */
      const comparedByRecheck = new Set<string>();
      const due = await rechecks.due(report.gateway, input.object, MAX_RECHECKED);
      let looked = 0;
      for (const rows of groupByWindow(due)) {
        // Rows another run compared for good are dropped; this run's own (an earlier attempt's) are compared
        // again, so what that attempt opened still counts as this run's.
        const open: ReconciliationRecheckRecord[] = [];
        for (const r of rows) {
          if (r.done_by !== undefined && r.done_by !== input.runId) await rechecks.drop(r._id);
          else open.push(r);
        }
        if (open.length === 0) continue;
        const first = open[0]!;
        const around = widened({ from: first.window_from, to: first.window_to }, grace + LOOK_FURTHER_MS);
        const wanted = new Set(open.map((r) => r.match_key));
        const entries = new Map<string, GatewayRow>();
        for await (const rows of reportPages(report, around, input.object)) {
          for (const g of rows) if (wanted.has(gatewayMatchKey(g))) entries.set(gatewayMatchKey(g), g);
          heartbeat(`report of ${around.from} for rechecks: ${entries.size} of ${wanted.size} found`);
          if (entries.size === wanted.size) break;
        }
        for (const r of open) {
          if (++looked % 200 === 0) heartbeat(`rechecks: ${looked} of ${due.length} read again`);
          const g = entries.get(r.match_key);
          const ours = await rowOf(ledger, r, g);
          if (!ours) {
            await rechecks.drop(r._id);
            continue;
          }
          const stillOpen = undecided(ours, g);
          // Ours pending: its workflow settles it (by its SLA or timeout), so it is read on; the gateway's alone, for a week.
          const until = ledgerMoneyState(ours.status) === 'pending' ? r.window_to.getTime() + RECHECK_AT_MOST_MS : r.recheck_until.getTime();
          if (stillOpen && Date.now() < until) {
            awaiting.add(r._id);
            continue;
          }
          comparedByRecheck.add(r._id);
          const findings = g ? comparePair(ours, g) : [unpairedLedgerRow(ours)].filter((f): f is Finding => f !== null);
          let settledApart: DiscrepancyRecord | null = null;
          for (const f of findings) {
            const held = await record(f.kind === 'status_mismatch' && !stillOpen ? { ...f, settled: true } : f);
            if (f.kind === 'status_mismatch') settledApart = held;
          }
          if (stillOpen) {
            deps.logger.warn({ run: input.runId, object: input.object, our_id: ours.ourId, ours: ours.status, theirs: g?.status ?? null }, 'reconciliation: a side is still pending long after its window; compared as it stands');
          } else if (g) {
            // The mismatch a run opened while a side was pending (if any) has its answer now.
            const pendingTime = discrepancyKey({ object: input.object, kind: 'status_mismatch', ourId: ours.ourId, gatewayId: g.gatewayId });
            const why = settledApart
              ? `both sides settled, and differ: see ${settledApart._id} (run ${input.runId})`
              : `both sides settled alike (${ledgerMoneyState(ours.status)}), found by run ${input.runId}`;
            await discrepancies.settleStatusMismatch(pendingTime, why);
          }
          await rechecks.markDone(r._id, input.runId);
        }
      }

      // Our rows, page by page.
      const lone = new Map<string, LedgerRow>();
      const w = { from: new Date(input.from), to: new Date(input.to) };
      let cursor: LedgerCursor | undefined;
      for (;;) {
        const page =
          input.object === 'capture'
            ? await ledger.captures(w, cursor, PAGE)
            : input.object === 'refund'
              ? await ledger.refunds(w, cursor, PAGE)
              : await ledger.payouts(report.gateway, w, cursor, PAGE);
        for (const { row } of page) {
          result.ledgerRows += 1;
          const byRecheck = comparedByRecheck.has(recheckId(row));
          if (!byRecheck) await noteIfUndecided(row, matcher.gatewayFor(row));
          const findings = matcher.pairLedger(row);
          if (byRecheck) continue; // compared above, with the report of its first window
          // Not in the padded report: looked for further out below before it is called missing.
          if (findings.length === 1 && findings[0]!.kind === 'missing_at_gateway' && lone.size < MAX_LOOKED_FURTHER) lone.set(row.matchKey, row);
          else for (const f of findings) await record(f);
        }
        heartbeat(`ledger: ${result.ledgerRows} ${input.object} rows`);
        if (page.length < PAGE) break;
        cursor = page[page.length - 1]!.cursor;
      }

      // Pairs found outside the padded window's matching (further out, or by the report entry's owner) count as matched too.
      let pairedOutside = 0;

      // Rows of ours the padded report does not hold: the two sides may have stamped the object further apart
      // than the margin (a worker outage, a callback lost and found by a later poll), so the report a few hours
      // either side is read once for them before any is called missing.
      if (lone.size > 0) {
        for await (const rows of reportPages(report, widened(input, LOOK_FURTHER_MS), input.object)) {
          for (const g of rows) {
            const ours = lone.get(gatewayMatchKey(g));
            if (!ours) continue;
            lone.delete(ours.matchKey);
            pairedOutside += 1;
            await noteIfUndecided(ours, g);
            for (const f of comparePair(ours, g)) await record(f);
          }
          heartbeat(`report around the window: ${lone.size} rows of ours still unpaired`);
          if (lone.size === 0) break;
        }
        let told = 0;
        for (const ours of lone.values()) {
          const f = unpairedLedgerRow(ours);
          if (f) await record(f);
          if (++told % 200 === 0) heartbeat(`missing at the gateway: ${told} of ${lone.size} recorded`);
        }
      }

      // Report entries inside the window that none of our rows claimed: ours from outside the window, a
      // capture an intent voided (and its void refund), or money we have no record of.
      /** Keys of our rows from outside the window that an entry here paired with. */
      const ownersPaired = new Set<string>();
      const unclaimed = matcher.unpairedGateway();
      let lookedUp = 0;
      for (const g of unclaimed) {
        // A flood of findings (a report late or cut short) keeps the activity alive past its heartbeat timeout.
        if (++lookedUp % 200 === 0) heartbeat(`report entries no row of ours claimed: ${lookedUp} of ${unclaimed.length} looked up`);
        const ours = await ownerOf(ledger, g);
        if (ours === 'voided') continue;
        if (ours && 'row' in ours) {
          // A second entry for one row of ours (in this report, or beside the gateway id our row recorded, which
          // another window's report held): the gateway moved money twice for one request.
          const another = ours.row.gatewayId !== null && ours.row.gatewayId !== g.gatewayId;
          if (another || ownersPaired.has(ours.row.matchKey)) {
            const f = unpairedGatewayRow(g, ours.row.tenantId);
            if (f) await record(f);
            continue;
          }
          ownersPaired.add(ours.row.matchKey);
          pairedOutside += 1;
          if (comparedByRecheck.has(recheckId(ours.row))) continue;
          await noteIfUndecided(ours.row, g);
          for (const f of comparePair(ours.row, g)) await record(f);
          continue;
        }
        const f = unpairedGatewayRow(g, ours?.tenantId ?? null);
        if (f) await record(f);
      }
      result.matched = matcher.matched + pairedOutside;

      result.rechecked = comparedByRecheck.size;
      result.awaitingRecheck = awaiting.size;
      deps.logger.info({ run: input.runId, from: input.from, to: input.to, ...result, sample: undefined }, 'reconciliation: object type done');
      return result;
    },
  };
}

/** The report's entries of one object type in `window`, a page at a time (the caller may stop early). */
async function* reportPages(report: SettlementReportSource, window: { from: string; to: string }, object: ReconciledObject): AsyncGenerator<GatewayRow[]> {
  let after: string | undefined;
  for (;;) {
    const page = await report.page(window, after, 1000);
    yield page.rows.filter((r) => r.object === object);
    if (!page.hasMore || page.rows.length === 0) return;
    after = page.rows[page.rows.length - 1]!.gatewayId;
  }
}

/** A window `ms` wider on each side, as the report reads it. */
function widened(w: { from: string | Date; to: string | Date }, ms: number): { from: string; to: string } {
  return { from: new Date(new Date(w.from).getTime() - ms).toISOString(), to: new Date(new Date(w.to).getTime() + ms).toISOString() };
}

/** A row's recheck id: one per object and match key, whichever window noted it first. */
function recheckId(row: Pick<LedgerRow, 'object' | 'matchKey'>): string {
  return `${row.object}:${row.matchKey}`;
}

/** Rechecks by the window that left them undecided (one report read per window). */
function groupByWindow(rows: ReconciliationRecheckRecord[]): ReconciliationRecheckRecord[][] {
  const by = new Map<string, ReconciliationRecheckRecord[]>();
  for (const r of rows) {
    const k = `${r.window_from.toISOString()}|${r.window_to.toISOString()}`;
    by.set(k, [...(by.get(k) ?? []), r]);
  }
  return [...by.values()];
}

/** A recheck's row of ours as the ledger has it now; null when it no longer stands (nothing to compare). */
async function rowOf(ledger: ReturnType<typeof ledgerData>, r: ReconciliationRecheckRecord, g: GatewayRow | undefined): Promise<LedgerRow | null> {
  switch (r.object_type) {
    case 'capture': {
      const intent = await ledger.intent(r.our_id);
      return intent?.gateway_charge_id === r.match_key ? captureRow(intent) : null;
    }
    case 'refund': {
      const voidOf = VOID_KEY.exec(r.our_id)?.[1];
      if (voidOf) {
        const intent = await ledger.intent(voidOf);
        return intent ? voidRefundRow(intent, r.our_id, g?.gatewayId ?? null) : null;
      }
      const refund = await ledger.refund(r.our_id);
      return refund ? refundRow(refund) : null;
    }
    case 'payout': {
      const payout = await ledger.payout(r.our_id);
      return payout ? payoutRow(payout) : null;
    }
  }
}

/** Who owns a report entry no row of the window claimed: our row (to compare), a void, just a tenant, or nobody. */
async function ownerOf(ledger: ReturnType<typeof ledgerData>, g: GatewayRow): Promise<{ row: LedgerRow } | { tenantId: string } | 'voided' | null> {
  const ref = g.reference;
  switch (g.object) {
    case 'capture': {
      const intent = ref ? await ledger.intent(ref) : null;
      if (intent?.gateway_charge_id === g.gatewayId && intent.status === 'success') return { row: captureRow(intent) };
      // A capture its intent did not own and refunded at once (the void refund pairs with it below); one whose
      // refund failed stays a discrepancy.
      if (intent?.voided_charges?.some((v) => v.charge_id === g.gatewayId && v.outcome === 'refunded')) return 'voided';
      const byCharge = await ledger.intentByCharge(g.gatewayId);
      if (byCharge && byCharge.status === 'success') return { row: captureRow(byCharge) };
      const tenantId = intent?.tenant_id ?? byCharge?.tenant_id;
      return tenantId ? { tenantId } : null;
    }
    case 'refund': {
      const refund = await ledger.refund(g.idempotencyKey);
      if (refund) return { row: refundRow(refund) };
      const voidOf = VOID_KEY.exec(g.idempotencyKey)?.[1];
      if (voidOf) {
        const intent = await ledger.intent(voidOf);
        if (intent?.voided_charges?.some((v) => v.charge_id === g.chargeId && v.outcome === 'refunded')) {
          // The intent took its void as done when the gateway accepted it (most answer `pending` first) and
          // never asks again: the report is where a void refund that failed, or never settled, shows.
          if (gatewayMoneyState(g.status) === 'succeeded') return 'voided';
          return { row: voidRefundRow(intent, g.idempotencyKey, g.gatewayId) };
        }
      }
      // A refund nothing of ours asked for still names whose money it moved: the intent that owns its charge,
      // before its free-text reference (which could name another tenant's object).
      const named = (g.chargeId ? await ledger.intentByCharge(g.chargeId) : null) ?? (ref ? ((await ledger.refund(ref)) ?? (await ledger.intent(ref))) : null);
      return named ? { tenantId: named.tenant_id } : null;
    }
    case 'payout': {
      const payout = await ledger.payout(g.idempotencyKey);
      if (payout) return { row: payoutRow(payout) };
      const named = ref ? await ledger.payout(ref) : null;
      return named ? { tenantId: named.tenant_id } : null;
    }
  }
}

function regionOf(tenantId: string | null): string | null {
  return tenantId ? (parseId(tenantId)?.region ?? null) : null;
}
