// All sandbox state lives in memory on purpose: it is a test double for gateways, so a restart is a clean
// slate. Nothing here is durable, and nothing should be.

import type { CardBehaviour, CardBrand } from './cards';
import type {
  AnyRecord,
  ChargeRecord,
  EffectKind,
  PayoutRecord,
  RecipientRecord,
  RefundRecord,
} from './resources';
import type { SettlementEntry, SettlementOverride } from './settlement-report';

export interface MintedToken {
  id: string;
  behaviour: CardBehaviour;
  brand: CardBrand;
  last4: string;
  expMonth: number;
  expYear: number;
  createdAt: Date;
}

/**
 * A reusable (saved-card) token, issued by a succeeded charge that asked `setup_future_usage: off_session`.
 * It keeps the behaviour of the card it was made from, which decides its merchant-initiated charges.
 */
export interface ReusableToken extends MintedToken {
  /** The charge that issued it. */
  chargeId: string;
}

export type AgreementType = 'RECURRING' | 'INSTALLMENT' | 'UNSCHEDULED';

/** The merchant's agreement behind merchant-initiated charges, by its reference. */
export interface AgreementRecord {
  reference: string;
  type: AgreementType;
  /** The network transaction id of its first succeeded charge; later charges must send it. */
  networkTransactionId: string | null;
  firstChargeId: string | null;
  createdAt: Date;
}

/** One effect the gateway applied, under the idempotency key that asked for it. */
export interface EffectEntry {
  kind: EffectKind;
  id: string;
  idempotencyKey: string;
  /** What the request asked for; a repeat of the key must ask for the same thing. */
  fingerprint: string;
  createdAt: Date;
  /** Requests with this key after the first one (retries), each answered without a new effect. */
  replays: number;
}

export type IdempotencyLookup =
  | { found: false }
  | { found: true; effect: EffectEntry }
  | { found: true; conflict: string };

export class SandboxStore {
  readonly tokens = new Map<string, MintedToken>();
  readonly reusableTokens = new Map<string, ReusableToken>();
  readonly agreements = new Map<string, AgreementRecord>();
  readonly charges = new Map<string, ChargeRecord>();
  readonly refunds = new Map<string, RefundRecord>();
  readonly payouts = new Map<string, PayoutRecord>();
  readonly recipients = new Map<string, RecipientRecord>();
  /** Test hooks of the settlement report (settlement-report.ts): mismatches planted by gateway id, and phantom entries. */
  readonly settlementOverrides = new Map<string, SettlementOverride>();
  readonly phantomEntries: SettlementEntry[] = [];

  private readonly effectsByKey = new Map<string, EffectEntry>();
  private readonly effectLog: EffectEntry[] = [];

  /**
   * Looks up an idempotency key. Keys are global across kinds, as at real gateways; reusing one for a
   * different kind or different parameters is a caller bug and reported as a conflict. A found key counts
   * as a replay.
   */
  lookup(kind: EffectKind, idempotencyKey: string, fingerprint: string): IdempotencyLookup {
    const effect = this.effectsByKey.get(idempotencyKey);
    if (!effect) return { found: false };
    if (effect.kind !== kind) {
      return { found: true, conflict: `Idempotency key already used for a ${effect.kind} (${effect.id}).` };
    }
    if (effect.fingerprint !== fingerprint) {
      return {
        found: true,
        conflict: `Idempotency key already used for ${effect.id} with different parameters.`,
      };
    }
    effect.replays += 1;
    return { found: true, effect };
  }

  recordEffect(kind: EffectKind, id: string, idempotencyKey: string, fingerprint: string, createdAt: Date): void {
    const effect: EffectEntry = { kind, id, idempotencyKey, fingerprint, createdAt, replays: 0 };
    this.effectsByKey.set(idempotencyKey, effect);
    this.effectLog.push(effect);
  }

  /** The effect recorded under a key, without counting a replay (status queries by key). */
  effectByKey(idempotencyKey: string): EffectEntry | undefined {
    return this.effectsByKey.get(idempotencyKey);
  }

  effects(filter: { idempotencyKey?: string; kind?: EffectKind } = {}): EffectEntry[] {
    return this.effectLog.filter(
      (e) =>
        (filter.idempotencyKey === undefined || e.idempotencyKey === filter.idempotencyKey) &&
        (filter.kind === undefined || e.kind === filter.kind),
    );
  }

  get totalEffects(): number {
    return this.effectLog.length;
  }

  find(kind: EffectKind, id: string): AnyRecord | undefined {
    switch (kind) {
      case 'charge': {
        const record = this.charges.get(id);
        return record && { kind, record };
      }
      case 'refund': {
        const record = this.refunds.get(id);
        return record && { kind, record };
      }
      case 'payout': {
        const record = this.payouts.get(id);
        return record && { kind, record };
      }
      case 'recipient': {
        const record = this.recipients.get(id);
        return record && { kind, record };
      }
    }
  }

  /** Amount of a charge still refundable: pending and succeeded refunds hold their amount. */
  refundableAmount(charge: ChargeRecord): number {
    let held = 0;
    for (const r of this.refunds.values()) {
      if (r.chargeId === charge.id && r.status !== 'rejected' && r.status !== 'canceled') held += r.amount;
    }
    return charge.amount - held;
  }
}
