import { undiscountedTotal } from './compose-invoice';
import type { TaxRateInput } from './invoice-math';
import { prorationLines, type PricedItem } from './proration';

// The invoices an items change of a subscription leads to, as its workflow (workflows/subscription/state.ts
// changeItems and invoice) would make them, each as its total before any discount: what the API holds to the
// largest amount a payment can take before it asks the workflow for the change.

export interface ItemsChange {
  /** The items as they are, and as the change leaves them (matched by `key`; a new item has a key of its own). */
  before: PricedItem[];
  after: PricedItem[];
  period: { start: number; end: number };
  /** The instant the prorations are computed for, within `period`. */
  at: number;
  trialing: boolean;
  behavior: 'create_prorations' | 'always_invoice' | 'none';
  /** Prorations of earlier changes, waiting for the next period's invoice. */
  pending: readonly { line: string; amount: number }[];
  taxRates: TaxRateInput[];
}

/**
 * `now`: the invoice of the change's prorations an `always_invoice` change issues at once (null when it issues
 * none); `next`: the next period's invoice, its new items and every proration pending by then.
 */
export function invoicesOfChange(c: ItemsChange): { now: number | null; next: number } {
  // As the workflow: no prorations in a trial or with `none`.
  const prorations = c.trialing || c.behavior === 'none' ? [] : prorationLines(c.before, c.after, c.period, c.at).map((l) => ({ line: l.key, amount: l.amount }));
  const invoicedNow = c.behavior === 'always_invoice' && prorations.length > 0;
  const items = c.after.map((i) => ({ line: i.key, amount: i.periodAmount }));
  return {
    now: invoicedNow ? undiscountedTotal(prorations, c.taxRates) : null,
    next: undiscountedTotal([...items, ...c.pending, ...(invoicedNow ? [] : prorations)], c.taxRates),
  };
}
