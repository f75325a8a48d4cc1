import { randomBytes } from 'node:crypto';

// Sandbox ids look like a real gateway's: a type prefix and 24 random hex characters. The prefixes differ
// from ours (pi_, re_) so logs never confuse a gateway id with one of our ids.
/** pmt: reusable (saved-card) tokens; ntx: network transaction ids. */
export type IdPrefix = 'tok' | 'pmt' | 'ntx' | 'ch' | 'rf' | 'po' | 'rcp' | 'evt';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
