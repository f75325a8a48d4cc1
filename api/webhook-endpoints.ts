import type { z } from 'zod';
import { invalidRequest } from '../domain/errors';
import { newId } from '../platform/ids';
import type { Mongo } from '../platform/mongo';
import type { EndpointRef } from '../workflows/definitions';
import { checkWebhookUrl } from '../activities/webhooks/ssrf';
import type { webhooksSchema } from './common-schemas';

/**
 * Checks the endpoints a merchant gives and keeps their secrets in `webhook_secrets`, so that workflows
 * carry only a reference (`whs_...#<index>`) and no secret ever enters workflow history.
 */
export async function storeWebhookEndpoints(
  mongo: Mongo,
  tenantId: string,
  region: string,
  webhooks: z.infer<typeof webhooksSchema> | undefined,
  opts: { allowPrivateHosts: boolean },
): Promise<EndpointRef[]> {
  if (!webhooks || webhooks.length === 0) return [];
  webhooks.forEach((w, i) => {
    const check = checkWebhookUrl(w.url, opts);
    if (!check.ok) throw invalidRequest('webhook_url_invalid', `webhooks[${i}][url] is not allowed: ${check.reason}`, `webhooks[${i}][url]`);
  });
  let secretsId: string | null = null;
  if (webhooks.some((w) => w.secret)) {
    secretsId = newId('whs', region);
    await mongo.c.webhookSecrets.insertOne({ _id: secretsId, tenant_id: tenantId, secrets: webhooks.map((w) => w.secret ?? null), created_at: new Date() });
  }
  return webhooks.map((w, i) => ({ url: w.url, events: [...w.events], ...(w.secret && secretsId ? { secretRef: `${secretsId}#${i}` } : {}) }));
}
