import { z } from 'zod';

// The payment methods we know how to present. Connectors and payment forms name methods from this list;
// the listing endpoints and the hosted page show them in `order`, whatever order they were configured in,
// so a merchant's picker and our checkout agree.

export const PAYMENT_METHOD_NAMES = ['card', 'apple_pay', 'google_pay', 'sepa_debit', 'bank_transfer', 'mobile_money'] as const;
export type PaymentMethodName = (typeof PAYMENT_METHOD_NAMES)[number];

export type PaymentMethodCategory = 'card' | 'wallet' | 'bank' | 'mobile';

export interface CatalogEntry {
  name: PaymentMethodName;
  title: string;
  category: PaymentMethodCategory;
  /** Display order, ascending. Gaps leave room to slot a method in without renumbering. */
  order: number;
}

export const CATALOG: Readonly<Record<PaymentMethodName, CatalogEntry>> = {
  card: { name: 'card', title: 'Card', category: 'card', order: 10 },
  apple_pay: { name: 'apple_pay', title: 'Apple Pay', category: 'wallet', order: 20 },
  google_pay: { name: 'google_pay', title: 'Google Pay', category: 'wallet', order: 30 },
  sepa_debit: { name: 'sepa_debit', title: 'SEPA Direct Debit', category: 'bank', order: 40 },
  bank_transfer: { name: 'bank_transfer', title: 'Bank transfer', category: 'bank', order: 50 },
  mobile_money: { name: 'mobile_money', title: 'Mobile money', category: 'mobile', order: 60 },
};

export function isPaymentMethodName(name: string): name is PaymentMethodName {
  return Object.prototype.hasOwnProperty.call(CATALOG, name);
}

/**
 * Known names among `names`, each once, in display order. Names we do not know (a method a connector
 * record carries from before it left the catalogue) are dropped: we could not render or route them.
 */
export function inCatalogOrder(names: Iterable<string>): PaymentMethodName[] {
  const known = new Set<PaymentMethodName>();
  for (const n of names) if (isPaymentMethodName(n)) known.add(n);
  return [...known].sort((a, b) => CATALOG[a].order - CATALOG[b].order);
}

export const paymentMethodEntrySchema = z
  .object({
    name: z.string().describe('Machine name of the method'),
    title: z.string().describe('Display title'),
    category: z.string().describe('Display category: card, wallet, bank or mobile'),
    logo_url: z.url().describe('Logo (SVG) served by this API'),
    favicon_url: z.url().describe('Square icon (SVG) served by this API'),
  })
  .describe('Payment method entry');
export type PaymentMethodEntry = z.infer<typeof paymentMethodEntrySchema>;

export const LOGO_PATH = '/assets/payment-methods';

/**
 * A method's logo (or favicon) on `publicBaseUrl`: the base of the request's region,
 * regionPublicBaseUrl(auth.region, config) from api/http/region.ts, so a listing answered on
 * `api-<region>.` names logos on that host. The hosted page passes '' (same-origin paths).
 */
export function logoUrl(publicBaseUrl: string, name: PaymentMethodName, kind: 'logo' | 'favicon' = 'logo'): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${LOGO_PATH}/${name}${kind === 'favicon' ? '-favicon' : ''}.svg`;
}

/** The public shape of a method, with logo URLs on our own host. */
export function paymentMethodEntry(name: PaymentMethodName, publicBaseUrl: string): PaymentMethodEntry {
  const { title, category } = CATALOG[name];
  return { name, title, category, logo_url: logoUrl(publicBaseUrl, name), favicon_url: logoUrl(publicBaseUrl, name, 'favicon') };
}
