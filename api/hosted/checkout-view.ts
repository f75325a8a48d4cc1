import { customerData } from '../../data/customers';
import { formatMoney } from '../../domain/money';
import type { Config } from '../../platform/config';
import type { Mongo } from '../../platform/mongo';
import type { ConnectorRecord, PaymentIntentRecord } from '../../platform/records';
import { CATALOG, logoUrl, type PaymentMethodCategory, type PaymentMethodName } from '../payment-methods/catalog';
import { intentCheckout } from '../payment-methods/resolve';
import { isClientSecretFor } from './client-secret';
import { lineItemsOf, type LineItems } from './line-items';
import { publishableKeyAllows } from './publishable-key';
import { sandboxPublicUrl } from './public-url';
import { paymentIntentData } from '../../data/payment-intents';
import { tenantData } from '../../data/tenants';

// Everything a checkout page shows, read from MongoDB once per page view, and who may see it.

/** How the browser proves it may see and pay this intent. */
export type CheckoutCredential = { kind: 'client_secret'; value: string } | { kind: 'publishable_key'; value: string };

/**
 * The intent, if `credential` opens it. Every failure (unknown intent, wrong secret, another tenant's
 * key) is the same `null`, so the caller answers one "not found" and a guess learns nothing.
 */
export async function authorizedIntent(
  mongo: Mongo,
  config: Pick<Config, 'KEY_HASH_SECRET'>,
  paymentIntentId: string,
  credential: CheckoutCredential | null,
  hostRegion: string,
): Promise<PaymentIntentRecord | null> {
  if (!credential) return null;
  // The client secret is checked before any read, so a flood of guesses costs no database work.
  if (credential.kind === 'client_secret' && !isClientSecretFor(paymentIntentId, credential.value, config.KEY_HASH_SECRET)) return null;
  const intent = await paymentIntentData(mongo).findForHostedPage(paymentIntentId);
  if (!intent) return null;
  if (credential.kind === 'publishable_key') {
    const ok = await publishableKeyAllows(mongo, config.KEY_HASH_SECRET, credential.value, { tenantId: intent.tenant_id, region: intent.region }, hostRegion);
    if (!ok) return null;
  }
  return intent;
}

/** Reads the credential from a query string: `client_secret` (hosted page) or `key` (embedded form). */
export function credentialFrom(query: Record<string, unknown>, accept: readonly CheckoutCredential['kind'][]): CheckoutCredential | null {
  const secret = query['client_secret'];
  const key = query['key'];
  if (accept.includes('client_secret') && typeof secret === 'string' && secret) return { kind: 'client_secret', value: secret };
  if (accept.includes('publishable_key') && typeof key === 'string' && key) return { kind: 'publishable_key', value: key };
  return null;
}

// Gateways whose cards the browser can tokenize itself, and where. A gateway missing here has no card
// form on our page (its card method is listed as unavailable).
const TOKENIZERS: Record<string, (config: Pick<Config, 'SANDBOX_PUBLIC_URL' | 'SANDBOX_URL'>) => string> = {
  sandbox: (config) => `${sandboxPublicUrl(config)}/v1/tokens`,
};

export interface CheckoutMethodView {
  name: PaymentMethodName;
  title: string;
  category: PaymentMethodCategory;
  logoUrl: string;
  /** Can the customer pay with it on this page? */
  available: boolean;
}

export interface CheckoutView {
  intent: PaymentIntentRecord;
  merchantName: string;
  amountLabel: string;
  methods: CheckoutMethodView[];
  /** The card form's tokenization endpoint and connector, when a card can be paid here. */
  card: { tokenUrl: string; connector: string; testMode: boolean } | null;
  /** The purchase's lines (older intents) and their image origins, which the page's CSP allows (hosted layout). */
  lineItems: LineItems;
  /** The intent's customer was deleted since it was made: no card can be saved for it any more. */
  customerDeleted?: boolean;
}

export async function loadCheckoutView(
  mongo: Mongo,
  config: Pick<Config, 'SANDBOX_PUBLIC_URL' | 'SANDBOX_URL'>,
  intent: PaymentIntentRecord,
  assetBaseUrl: string,
): Promise<CheckoutView> {
  // The checkout as it stands now (the same resolution as the listing and the attempts endpoint): an
  // unpinned intent offers the tenant's live connectors of this moment, a pinned one its pin's.
  const [tenant, { checkout, connectors }, customerDeleted] = await Promise.all([
    tenantData(mongo).find(intent.tenant_id),
    intentCheckout(mongo, intent),
    intent.customer ? customerData(mongo).isDeleted(intent.tenant_id, intent.customer) : false,
  ]);
  const { methods } = checkout;
  const byId = new Map(connectors.map((c) => [c._id, c]));
  const card = cardCheckout(
    methods.find((m) => m.name === 'card')?.connectors.map((id) => byId.get(id)).filter((c): c is ConnectorRecord => !!c) ?? [],
    config,
  );
  return {
    intent,
    merchantName: tenant?.name ?? 'Merchant',
    amountLabel: formatMoney(intent.amount, intent.currency),
    methods: methods.map((m) => ({
      name: m.name,
      title: CATALOG[m.name].title,
      category: CATALOG[m.name].category,
      logoUrl: logoUrl(assetBaseUrl, m.name),
      available: m.name === 'card' && card !== null,
    })),
    card,
    lineItems: lineItemsOf(intent),
    customerDeleted,
  };
}

/** The first card connector, in checkout order, whose gateway the browser can tokenize for. */
export function cardCheckout(cardConnectors: readonly ConnectorRecord[], config: Pick<Config, 'SANDBOX_PUBLIC_URL' | 'SANDBOX_URL'>): CheckoutView['card'] {
  for (const c of cardConnectors) {
    const tokenizer = TOKENIZERS[c.gateway];
    if (tokenizer) return { tokenUrl: tokenizer(config), connector: c._id, testMode: c.gateway === 'sandbox' || !c.live };
  }
  return null;
}
