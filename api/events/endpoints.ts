import type { z } from 'zod';
import { invalidRequest } from '../../domain/errors';
import { newId } from '../../platform/ids';
import type { Mongo } from '../../platform/mongo';
import { webhookTargetPolicy, type Config } from '../../platform/config';
import type { WebhookSecretsRecord } from '../../platform/records';
import type { EndpointRef } from '../../workflows/events';
import { checkWebhookUrl } from '../../platform/ssrf';
import type { webhooksSchema } from '../http/common-schemas';
import { secretRef, webhookSecretData } from '../../data/webhook-secrets';
import { canonicalWebhookUrl } from '../../data/webhook-endpoints';
import { insertOrHolder } from '../../data/idempotency';

// The endpoints a merchant gives keep their secrets in `webhook_secrets`, so that workflows carry only a
// reference (`whs_...#<index>`) and no secret ever enters workflow history. Checking and naming the secrets
// record writes nothing; the write comes after the create's guard has decided (a refused request writes
// nothing).

export interface PlannedWebhooks {
  endpoints: EndpointRef[];
  /** The record to write once the create is decided; null when no endpoint has a secret. */
  secrets: WebhookSecretsRecord | null;
}

export { secretRef } from '../../data/webhook-secrets';

/**
 * Checks the endpoints (400 naming the one refused) and names their secrets' record, without writing. The
 * policy comes from the config here, not from each caller: production refuses http and private hosts.
 */
export function planWebhookEndpoints(
  tenantId: string,
  region: string,
  webhooks: z.infer<typeof webhooksSchema> | undefined,
  config: Pick<Config, 'NODE_ENV' | 'WEBHOOK_ALLOW_PRIVATE_HOSTS'>,
  /** How the request names endpoint `i`'s URL, for the 400 that refuses it. */
  urlParam: (i: number) => string = (i) => `webhooks[${i}][url]`,
): PlannedWebhooks {
  if (!webhooks || webhooks.length === 0) return { endpoints: [], secrets: null };
  const policy = webhookTargetPolicy(config);
  webhooks.forEach((w, i) => {
    const check = checkWebhookUrl(w.url, policy);
    if (!check.ok) throw invalidRequest('webhook_url_invalid', `${urlParam(i)} is not allowed: ${check.reason}`, urlParam(i));
  });
  const secretsId = webhooks.some((w) => w.secret) ? newId('whs', region) : null;
  return {
    endpoints: webhooks.map((w, i) => ({ url: canonicalWebhookUrl(w.url), events: [...w.events], ...(w.secret && secretsId ? { secretRef: secretRef(secretsId, i) } : {}) })),
    secrets: secretsId ? { _id: secretsId, tenant_id: tenantId, secrets: webhooks.map((w) => w.secret ?? null), created_at: new Date() } : null,
  };
}

/** Writes the planned secrets. */
export async function storeWebhookSecrets(mongo: Mongo, plan: PlannedWebhooks): Promise<void> {
  if (plan.secrets) await webhookSecretData(mongo).insert(plan.secrets);
}

/**
 * A create whose record names its secrets: the secrets first, then the insert that is its idempotency guard, so
 * a record a resend finds always has the secrets it names. Answers the holder of the key when another request
 * won it (this request's secrets are taken back), else null. Secrets of an insert that failed are kept: it may
 * have landed unanswered, and a secret no record names is only a stray row.
 */
export async function insertNamingSecrets<T>(mongo: Mongo, plan: PlannedWebhooks, insert: () => Promise<unknown>, holder: () => Promise<T | null>): Promise<T | null> {
  await storeWebhookSecrets(mongo, plan);
  const winner = await insertOrHolder(insert, holder);
  if (winner) await discardWebhookSecrets(mongo, plan).catch(() => undefined);
  return winner;
}

/** Takes back the secrets of a create that did not go through. */
export async function discardWebhookSecrets(mongo: Mongo, plan: PlannedWebhooks): Promise<void> {
  if (plan.secrets) await webhookSecretData(mongo).remove(plan.secrets._id);
}

/** Shared-secret endpoints as records keep them: the URL and where its secret is (events do not apply). */
export type SharedSecretEndpoint = { url: string; secretRef?: string };

export function sharedSecretEndpoints(plan: PlannedWebhooks): SharedSecretEndpoint[] {
  return plan.endpoints.map((e) => ({ url: e.url, ...(e.secretRef ? { secretRef: e.secretRef } : {}) }));
}

/** Stored shared-secret endpoints as a workflow's endpoints (a `legacy` event goes to every one). */
export function endpointRefs(stored: readonly SharedSecretEndpoint[]): EndpointRef[] {
  return stored.map((e) => ({ url: e.url, events: [], ...(e.secretRef ? { secretRef: e.secretRef } : {}) }));
}

/**
 * The older interface's webhooks (payouts, older intents and refunds, checkout intents): `webhook_urls` that
 * share one `webhook_secret`, each sent the same body with the secret in Service-Webhook-Secret. A URL the
 * webhook target policy refuses is a 400 naming it by its place in webhook_urls (`webhook_urls[i]`), and so
 * is a URL listed twice, as v202607's `webhooks` refuse it: every entry is delivered, so it would get every
 * event twice.
 */
export function planSharedSecretWebhooks(
  tenantId: string,
  region: string,
  urls: string[] | undefined,
  secret: string | undefined,
  config: Pick<Config, 'NODE_ENV' | 'WEBHOOK_ALLOW_PRIVATE_HOSTS'>,
): PlannedWebhooks {
  // Canonical here too: not every interface's schema takes webhook_urls through webhookUrlSchema.
  const canonical = urls?.map(canonicalWebhookUrl);
  const seen = new Map<string, number>();
  canonical?.forEach((url, i) => {
    const first = seen.get(url);
    if (first === undefined) seen.set(url, i);
    else
      throw invalidRequest(
        'parameter_invalid',
        `Invalid webhook_urls[${i}]: the same URL as webhook_urls[${first}]: list each URL once (every entry is sent every event)`,
        `webhook_urls[${i}]`,
      );
  });
  const endpoints = canonical?.map((url) => ({ url, events: [], ...(secret ? { secret } : {}) }));
  return planWebhookEndpoints(tenantId, region, endpoints, config, (i) => `webhook_urls[${i}]`);
}
