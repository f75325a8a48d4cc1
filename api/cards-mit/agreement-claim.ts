import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError, invalidRequest } from '../../domain/errors';
import { agreementData, agreementIdFor, agreementScope, type AgreementClaim } from '../../data/agreements';
import { paymentIntentData } from '../../data/payment-intents';
import type { Mongo } from '../../platform/mongo';
import type { AgreementRecord, AgreementType } from '../../platform/records';

/*
 * The first charge under an agreement goes out without a network transaction id and gives the agreement its id;
 * every later one must send it (the networks, and the sandbox, decline one without it once the first succeeded).
 * So the first charge is one at a time per agreement: POST /cards/mit claims the agreement before it (a record
 * without an id, unique by scope), and a concurrent charge under it waits for that charge's id.
 */

/** How long a charge waits for the agreement's first charge before answering 409: a charge takes a second or two. */
export const FIRST_CHARGE_WAIT_MS = 8_000;
const POLL_MS = 100;
/** The Retry-After of that 409. */
const RETRY_AFTER_S = 2;
/** Beyond the workflow Update deadline: a claim this much older belongs to a request that is surely over. */
const STALE_MARGIN_MS = 15_000;
/** A first charge paid this recently may still be recording the agreement's id (its intent's record can land first). */
const PAID_ID_MARGIN_MS = 30_000;

export interface AgreementTurn {
  /** The agreement as this charge goes out under it: with the first charge's id, or this charge's own claim. */
  agreement: AgreementRecord;
  /** The claim this request holds (its token), to settle once the charge answers; null when it holds none. */
  held: string | null;
}

export interface TurnRequest {
  tenantId: string;
  region: string;
  paymentMethod: string;
  agreementId: string;
  agreementType: AgreementType;
  paymentIntent: string;
  /** WORKFLOW_UPDATE_DEADLINE_MS: how long a claiming request can be charging. */
  updateDeadlineMs: number;
  waitMs?: number;
}

export const agreementTypeMismatch = (agreementId: string, type: AgreementType) =>
  invalidRequest('agreement_type_mismatch', `Agreement '${agreementId}' of this card is ${type}`, 'agreement_type');

const firstChargeInProgress = () =>
  new DomainError(
    'conflict',
    'agreement_first_charge_in_progress',
    "The agreement's first charge is still in progress (awaiting 3D Secure or the gateway); later charges need its network transaction id. Retry shortly",
    'agreement_id',
    RETRY_AFTER_S,
  );

/**
 * This charge's turn under the agreement: at once when the agreement has its id, or when this request claims the
 * first charge; otherwise after the claimed first charge records its id, or gives up with no id (then this
 * request takes the claim over). A live first charge of another type is a 400; still no id after the wait, a 409.
 */
export async function agreementTurn(mongo: Mongo, r: TurnRequest): Promise<AgreementTurn> {
  const data = agreementData(mongo);
  const scope = agreementScope(r.tenantId, r.paymentMethod, r.agreementId);
  const giveUpAt = Date.now() + (r.waitMs ?? FIRST_CHARGE_WAIT_MS);
  for (;;) {
    const claim: AgreementClaim = { token: randomUUID(), payment_intent: r.paymentIntent, at: new Date() };
    const found = await data.byScope(r.tenantId, r.paymentMethod, r.agreementId);
    if (!found) {
      const record: AgreementRecord & { claim: AgreementClaim } = {
        _id: agreementIdFor(r.region, scope),
        tenant_id: r.tenantId,
        scope,
        payment_method: r.paymentMethod,
        agreement_id: r.agreementId,
        agreement_type: r.agreementType,
        network_transaction_id: null,
        first_transaction: null,
        created_at: claim.at,
        claim,
      };
      if (await data.claim(record)) return { agreement: record, held: claim.token };
      continue; // another request claimed it just now
    }
    if (found.network_transaction_id) {
      if (found.agreement_type !== r.agreementType) throw agreementTypeMismatch(r.agreementId, found.agreement_type);
      return { agreement: found, held: null };
    }
    if (await givesNoId(mongo, found, r.updateDeadlineMs)) {
      if (await data.takeOver(found, claim, r.agreementType)) return { agreement: { ...found, claim, agreement_type: r.agreementType, first_transaction: null }, held: claim.token };
      continue;
    }
    if (found.agreement_type !== r.agreementType) throw agreementTypeMismatch(r.agreementId, found.agreement_type);
    // The same charge repeated while it is on the wire: the intent's workflow joins it to the first.
    if (found.claim?.payment_intent === r.paymentIntent) return { agreement: found, held: null };
    if (Date.now() >= giveUpAt) throw firstChargeInProgress();
    await sleep(POLL_MS);
  }
}

/**
 * Whether a claim's first charge will give the agreement no id. Its charges under the agreement, as its intent's
 * record has them, decide: one still deciding (processing, awaiting 3DS, an unknown answer being reconciled past
 * any deadline), or paid moments ago (its id may be on its way), is live; otherwise a claim whose charge answered
 * is over (declined, or paid without an id), and one that never answered is over once its request surely is.
 */
async function givesNoId(mongo: Mongo, claimed: AgreementRecord, updateDeadlineMs: number): Promise<boolean> {
  if (!claimed.claim) return true; // a record without id nor claim: nobody is charging
  const intent = await paymentIntentData(mongo).find(claimed.tenant_id, claimed.claim.payment_intent);
  const charges = (intent?.transactions ?? []).filter((t) => t.agreement === claimed._id && t.payment_method === claimed.payment_method);
  const now = Date.now();
  const live = charges.some(
    (t) => t.status === 'processing' || t.status === 'requires_action' || (t.status === 'succeeded' && now - Date.parse(t.updated_at) < PAID_ID_MARGIN_MS),
  );
  if (live) return false;
  if (claimed.first_transaction) return true;
  return now - claimed.claim.at.getTime() > updateDeadlineMs + STALE_MARGIN_MS;
}

/**
 * Settles the claim this request holds once its charge has answered: kept (with its transaction) while the
 * outcome is still to come; ended when the charge gave no id (so the next charge is a first one). A paid charge
 * recorded the id already, which ended the claim: releasing it then changes nothing.
 */
export async function settleClaim(mongo: Mongo, r: TurnRequest, token: string, outcome: { pendingTransaction: string } | 'over'): Promise<void> {
  const data = agreementData(mongo);
  const scope = agreementScope(r.tenantId, r.paymentMethod, r.agreementId);
  if (outcome === 'over') await data.release(scope, token);
  else await data.noteClaimTransaction(scope, token, outcome.pendingTransaction);
}
