// Reconciliation's rules, without I/O: which window a scheduled run covers, how statuses of both sides
// compare, and what a pair (or a lone row) of our ledger and the gateway's settlement report says is wrong.
// The activity streams both sides through a SettlementMatcher; only the findings leave it.

export const RECONCILED_OBJECTS = ['capture', 'refund', 'payout'] as const;
export type ReconciledObject = (typeof RECONCILED_OBJECTS)[number];

export const DISCREPANCY_KINDS = ['missing_at_gateway', 'missing_in_ledger', 'amount_mismatch', 'status_mismatch'] as const;
export type DiscrepancyKind = (typeof DISCREPANCY_KINDS)[number];

/** Where money stands, whichever side says it: the one scale both sides' statuses are compared on. */
export type MoneyState = 'succeeded' | 'pending' | 'failed';

/** One capture, refund or payout as our records have it. */
export interface LedgerRow {
  object: ReconciledObject;
  /** pi_ (a capture), re_, or a payout uuid. */
  ourId: string;
  tenantId: string;
  /** The gateway id we recorded (null while we have none). */
  gatewayId: string | null;
  /**
   * What pairs it with a report entry: the charge id for a capture (an intent's attempts each have their
   * own key), our id for refunds and payouts (the idempotency key we sent).
   */
  matchKey: string;
  amount: number;
  currency: string;
  /** Our own status word (`success`, `pending`, `canceled`), kept on the discrepancy as is. */
  status: string;
}

/** One entry of the gateway's settlement report. */
export interface GatewayRow {
  object: ReconciledObject;
  gatewayId: string;
  idempotencyKey: string;
  reference: string | null;
  /** A refund's charge. */
  chargeId: string | null;
  amount: number;
  currency: string;
  /** The gateway's status word (`succeeded`, `declined`, `rejected`, ...). */
  status: string;
  occurredAt: string; // ISO 8601
}

export interface Side {
  amount: number;
  currency: string;
  status: string;
}

export interface Finding {
  kind: DiscrepancyKind;
  object: ReconciledObject;
  ourId: string | null;
  gatewayId: string | null;
  /** Our id as the gateway has it (the reference we sent), for rows we could not pair. */
  reference: string | null;
  tenantId: string | null;
  ours: Side | null;
  gateway: Side | null;
  /**
   * A status mismatch found when both sides had settled, on a row a side of which was pending at its window's
   * run: its own discrepancy, since the one that run may have opened compared a pending side.
   */
  settled?: true;
}

/** The key a run's discrepancy is unique by: a re-run of an overlapping window finds it instead of adding one. */
export function discrepancyKey(f: Pick<Finding, 'object' | 'kind' | 'ourId' | 'gatewayId' | 'settled'>): string {
  return `${f.object}:${f.ourId ?? `gateway:${f.gatewayId ?? ''}`}:${f.kind}${f.settled ? ':settled' : ''}`;
}

export function ledgerMoneyState(status: string): MoneyState {
  return status === 'success' ? 'succeeded' : status === 'pending' ? 'pending' : 'failed';
}

export function gatewayMoneyState(status: string): MoneyState {
  if (status === 'succeeded') return 'succeeded';
  if (status === 'pending' || status === 'requires_action') return 'pending';
  return 'failed'; // declined, rejected, failed, canceled
}

/**
 * Whether a side of a row is still undecided (pending): reconciliation reads such a row again at later runs
 * until both sides are final (for how long: RECHECK_FOR_MS, RECHECK_AT_MOST_MS).
 */
export function undecided(ours: Pick<LedgerRow, 'status'>, gateway: Pick<GatewayRow, 'status'> | undefined): boolean {
  return ledgerMoneyState(ours.status) === 'pending' || (gateway !== undefined && gatewayMoneyState(gateway.status) === 'pending');
}

/**
 * How long after its window a row only the gateway still calls pending is read again: a week covers a
 * refund's default SLA. A row our side calls pending is read until it settles (its workflow settles it by its
 * SLA or timeout), at most RECHECK_AT_MOST_MS.
 */
export const RECHECK_FOR_MS = 7 * 24 * 3600 * 1000;
export const RECHECK_AT_MOST_MS = 400 * 24 * 3600 * 1000;

/** The key a report entry pairs by (see LedgerRow.matchKey). */
export function gatewayMatchKey(row: Pick<GatewayRow, 'object' | 'gatewayId' | 'idempotencyKey'>): string {
  return row.object === 'capture' ? row.gatewayId : row.idempotencyKey;
}

function side(r: { amount: number; currency: string; status: string }): Side {
  return { amount: r.amount, currency: r.currency, status: r.status };
}

/** What one pair disagrees on: the amount (or currency), the status, both, or nothing. */
export function comparePair(ours: LedgerRow, gateway: GatewayRow): Finding[] {
  const base = { object: ours.object, ourId: ours.ourId, gatewayId: gateway.gatewayId, reference: gateway.reference, tenantId: ours.tenantId, ours: side(ours), gateway: side(gateway) };
  const found: Finding[] = [];
  // When neither side moved money the amounts say nothing: a transfer canceled by its key before the gateway saw
  // it leaves the gateway a placeholder of 0 with no currency.
  const nothingMoved = ledgerMoneyState(ours.status) === 'failed' && gatewayMoneyState(gateway.status) === 'failed';
  if (!nothingMoved && (ours.amount !== gateway.amount || ours.currency !== gateway.currency)) found.push({ kind: 'amount_mismatch', ...base });
  if (ledgerMoneyState(ours.status) !== gatewayMoneyState(gateway.status)) found.push({ kind: 'status_mismatch', ...base });
  return found;
}

/**
 * A row of ours the report does not list. Money we call moved and the gateway does not: always a
 * discrepancy. A pending row is still being worked on by its workflow, and a failed (or zero) one moved nothing.
 */
export function unpairedLedgerRow(ours: LedgerRow): Finding | null {
  // A zero amount settles nothing, so no report lists it.
  if (ledgerMoneyState(ours.status) !== 'succeeded' || ours.amount === 0) return null;
  return { kind: 'missing_at_gateway', object: ours.object, ourId: ours.ourId, gatewayId: ours.gatewayId, reference: null, tenantId: ours.tenantId, ours: side(ours), gateway: null };
}

/** A report entry none of our rows claims: money moving that we do not know of (declines moved nothing). */
export function unpairedGatewayRow(gateway: GatewayRow, tenantId: string | null): Finding | null {
  if (gatewayMoneyState(gateway.status) === 'failed') return null;
  return { kind: 'missing_in_ledger', object: gateway.object, ourId: null, gatewayId: gateway.gatewayId, reference: gateway.reference, tenantId, ours: null, gateway: side(gateway) };
}

/**
 * Pairs one object type's report entries (held in memory: the report of a window, read first) with our rows
 * streamed page by page. Report entries are read with a margin around the window, because the two sides
 * stamp an object at slightly different moments; only entries inside the window can be left unpaired.
 */
export class SettlementMatcher {
  /** Unpaired report entries by match key: more than one under a key when the gateway moved money twice for one request. */
  private readonly open = new Map<string, GatewayRow[]>();
  matched = 0;

  constructor(
    readonly object: ReconciledObject,
    readonly window: { from: string; to: string },
  ) {}

  addGateway(row: GatewayRow): void {
    if (row.object !== this.object) return;
    const key = gatewayMatchKey(row);
    const held = this.open.get(key);
    if (!held) this.open.set(key, [row]);
    else if (!held.some((g) => g.gatewayId === row.gatewayId)) held.push(row);
  }

  /** The report entry a row of ours would pair with (pairLedger's choice), if the report holds one (still unpaired). */
  gatewayFor(ours: Pick<LedgerRow, 'matchKey' | 'gatewayId'>): GatewayRow | undefined {
    const entries = this.open.get(ours.matchKey);
    return entries?.find((g) => g.gatewayId === ours.gatewayId) ?? entries?.[0];
  }

  /**
   * Our row against the report: the pair's findings, or the lone row's. It pairs with the entry of the gateway
   * id it recorded (else the first); any other entry under its key is money the gateway moved twice for one
   * request of ours, which our ledger does not hold (`missing_in_ledger`, unless it failed).
   */
  pairLedger(ours: LedgerRow): Finding[] {
    const entries = this.open.get(ours.matchKey);
    if (!entries) {
      const lone = unpairedLedgerRow(ours);
      return lone ? [lone] : [];
    }
    const gateway = this.gatewayFor(ours)!;
    this.open.delete(ours.matchKey);
    this.matched += 1;
    const twice = entries.filter((g) => g !== gateway).map((g) => unpairedGatewayRow(g, ours.tenantId));
    return [...comparePair(ours, gateway), ...twice.filter((f): f is Finding => f !== null)];
  }

  /** Report entries inside the window that no row of ours claimed (the caller looks each up before calling it missing). */
  unpairedGateway(): GatewayRow[] {
    const from = Date.parse(this.window.from);
    const to = Date.parse(this.window.to);
    return [...this.open.values()].flat().filter((g) => {
      const at = Date.parse(g.occurredAt);
      return at >= from && at < to && gatewayMoneyState(g.status) !== 'failed';
    });
  }
}

/** The window a scheduled run covers: the `windowSeconds` period that ended at or before it (UTC-aligned). */
export function scheduledWindow(scheduledAtMs: number, windowSeconds: number): { from: string; to: string } {
  const w = windowSeconds * 1000;
  const to = Math.floor(scheduledAtMs / w) * w;
  return { from: new Date(to - w).toISOString(), to: new Date(to).toISOString() };
}

/** Longest window one run takes: a month of rows is already a large run. */
export const MAX_WINDOW_SECONDS = 31 * 24 * 3600;

/** Why a window cannot be reconciled, or null when it can. */
export function windowProblem(w: { from: string; to: string }, nowMs: number): string | null {
  const from = Date.parse(w.from);
  const to = Date.parse(w.to);
  if (!(from < to)) return 'from must be before to';
  if (to - from > MAX_WINDOW_SECONDS * 1000) return `a window is at most ${MAX_WINDOW_SECONDS / 86400} days`;
  if (from > nowMs) return 'from must not be in the future';
  return null;
}

/** Counts by kind: a run's summary, kept in workflow history instead of its rows. */
export type KindCounts = Record<DiscrepancyKind, number>;

export const zeroCounts = (): KindCounts => ({ missing_at_gateway: 0, missing_in_ledger: 0, amount_mismatch: 0, status_mismatch: 0 });

/** What reconciling one object type of a window found: counts and a few ids, never the rows. */
export interface ReconcileObjectResult {
  object: ReconciledObject;
  ledgerRows: number;
  reportRows: number;
  /** Pairs of our row and a report entry compared: in the padded window, further out, or by the entry's owner. */
  matched: number;
  /** Discrepancies this call opened, by kind. */
  opened: KindCounts;
  /** Findings another run (or an earlier try of this one) had already opened. */
  alreadyOpen: number;
  /** The first discrepancies opened (ids), for the run's summary. */
  sample: { id: string; kind: DiscrepancyKind; ourId: string | null; gatewayId: string | null }[];
  /** Rows of earlier windows (a side was pending at their run) compared again: both sides final, or as they stood at the end of their recheck. Absent in runs before rechecks. */
  rechecked?: number;
  /** Rows with a side still pending, left for a later run (this window's and earlier ones'). Absent in runs before rechecks. */
  awaitingRecheck?: number;
}
