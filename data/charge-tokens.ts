import type { Mongo } from '../platform/mongo';
import { insertOnce } from './versioned-writes';

// The reusable card token a saving charge's answer carries, kept here by whoever read the answer (the charge
// and status activities, the callback route) and taken out of the answer, so it never enters a workflow's
// history (or the Temporal UI, or a codec server's view): savePaymentMethod reads it back by the charge.
// Keyed by gateway and charge id, which the gateway makes unique.

/** A gateway's charge answer as far as its token goes (gateways/types.ts ChargeOutcome). */
interface ChargeAnswer {
  status: string;
  chargeId?: string;
  card?: { reusableToken: string | null };
}

export function chargeTokenData(mongo: Mongo) {
  const c = mongo.c.chargeTokens;
  const id = (gateway: string, chargeId: string) => `${gateway}:${chargeId}`;
  return {
    /**
     * The answer as it may enter a history: its card's token kept here (unless `keep` is false: a charge of a
     * card saved already, whose token the gateway echoes), the card's other fields left.
     */
    async withoutToken<O extends ChargeAnswer>(gateway: string, outcome: O, keep = true): Promise<O> {
      if (outcome.status !== 'succeeded' || !outcome.card?.reusableToken || !outcome.chargeId) return outcome;
      if (keep) await insertOnce(c, { _id: id(gateway, outcome.chargeId), token: outcome.card.reusableToken, created_at: new Date() });
      return { ...outcome, card: { ...outcome.card, reusableToken: null } };
    },
    token: async (gateway: string, chargeId: string): Promise<string | null> => (await c.findOne({ _id: id(gateway, chargeId) }))?.token ?? null,
    /**
     * Once the card is saved, or the charge is refunded (a capture given back is never saved): the copy is
     * emptied and left as a marker, so an answer read again later (a callback the gateway sends again) does not
     * keep the token a second time.
     */
    drop: async (gateway: string, chargeId: string, marker = true): Promise<void> =>
      void (await c.updateOne({ _id: id(gateway, chargeId) }, { $set: { token: null, dropped_at: new Date() } }, { upsert: marker })),
  };
}
