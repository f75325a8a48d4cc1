import { z } from 'zod';
import { invalidRequest } from '../../domain/errors';
import { DEFAULT_COMMERCE_RATES } from '../../domain/commerce-totals';
import { commerceSettingsData } from '../../data/commerce-settings';
import type { CommerceSettingsRecord } from '../../platform/records';
import { discardWebhookSecrets, planSharedSecretWebhooks, sharedSecretEndpoints, storeWebhookSecrets } from '../events/endpoints';
import { amountSchema, sharedSecretWebhookFields } from '../http/common-schemas';
import { route, type RouteDef } from '../http/route';
import { tenantOr404, tenantParam } from './tenant-param';

// Admin API of a tenant's commerce settings (tax, shipping, return webhooks). The webhooks are those of the
// older interface: `webhook_urls` sharing one `webhook_secret`, checked like every webhook URL of the service
// and stored the same way (the secret in webhook_secrets, the record keeping `{url, secretRef}`).

const common = { versions: 'unversioned' as const, auth: 'admin' as const, tags: ['Admin'] };

/** 100 % in basis points. */
const MAX_TAX_RATE_BP = 10_000;

const settingsBody = z
  .object({
    taxRateBasisPoints: z
      .number()
      .int()
      .min(0)
      .max(MAX_TAX_RATE_BP)
      .meta({ description: 'Tax on the products (never on shipping), in basis points: 1500 = 15 %. Rounded half up once per cart' }),
    shippingFlat: amountSchema.meta({ description: 'Shipping of a checkout, in minor units (0: free)' }),
    freeShippingFrom: amountSchema
      .nullable()
      .optional()
      .meta({ description: 'Shipping is free from this subtotal on (minor units); unset or null: never free' }),
    ...sharedSecretWebhookFields('Each receives every return status change, the same body at the same time'),
  })
  .strict();

const settingsView = z.object({
  tenant: z.string(),
  taxRateBasisPoints: z.number().int(),
  shippingFlat: z.number().int(),
  freeShippingFrom: z.number().int().nullable(),
  webhook_urls: z.array(z.string()),
  webhook_secret_set: z.boolean().meta({ description: 'Whether deliveries carry Service-Webhook-Secret (the secret itself is never shown)' }),
  updatedAt: z.string().nullable().meta({ description: 'null: never set (the defaults: no tax, no shipping, no webhooks)' }),
});

function view(tenantId: string, r: CommerceSettingsRecord | null): z.infer<typeof settingsView> {
  if (!r)
    return { tenant: tenantId, ...DEFAULT_COMMERCE_RATES, webhook_urls: [], webhook_secret_set: false, updatedAt: null };
  return {
    tenant: tenantId,
    taxRateBasisPoints: r.tax_rate_basis_points,
    shippingFlat: r.shipping_flat,
    freeShippingFrom: r.free_shipping_from,
    webhook_urls: r.webhook_urls.map((w) => w.url),
    webhook_secret_set: r.webhook_urls.some((w) => w.secretRef !== undefined),
    updatedAt: r.updated_at.toISOString(),
  };
}

export const commerceSettingsRoutes: RouteDef[] = [
  route({
    ...common,
    method: 'put',
    path: '/admin/tenants/:tenant/commerce-settings',
    summary: "Set a tenant's commerce settings: tax rate, shipping, return webhooks (replaced whole)",
    params: tenantParam,
    body: settingsBody,
    responses: {
      200: { description: 'The settings as stored (never the secret)', schema: settingsView },
      400: { description: 'Invalid body, a webhook URL the service does not send to (named as `webhook_urls[i]`), or webhook_secret without webhook_urls' },
      404: { description: 'Unknown tenant' },
    },
    handler: async ({ params, body, deps }) => {
      const t = await tenantOr404(deps, params.tenant);
      if (body.webhook_secret !== undefined && !body.webhook_urls?.length)
        throw invalidRequest('parameter_invalid', 'webhook_secret is sent to webhook_urls: give webhook_urls with it', 'webhook_secret');
      // Checks every URL (400 naming it) and names the secret's record, writing nothing.
      const webhooks = planSharedSecretWebhooks(t._id, t.region, body.webhook_urls, body.webhook_secret, deps.config);
      const record: CommerceSettingsRecord = {
        _id: t._id,
        tax_rate_basis_points: body.taxRateBasisPoints,
        shipping_flat: body.shippingFlat,
        free_shipping_from: body.freeShippingFrom ?? null,
        webhook_urls: sharedSecretEndpoints(webhooks),
        updated_at: new Date(),
      };
      // The previous secret's record is kept: deliveries already under way still read it.
      await storeWebhookSecrets(deps.mongo, webhooks);
      try {
        await commerceSettingsData(deps.mongo).put(record);
      } catch (err) {
        await discardWebhookSecrets(deps.mongo, webhooks).catch(() => undefined);
        throw err;
      }
      return { status: 200, body: view(t._id, record) };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/admin/tenants/:tenant/commerce-settings',
    summary: "A tenant's commerce settings (the defaults when never set)",
    params: tenantParam,
    responses: { 200: { description: 'The settings (never the secret)', schema: settingsView }, 404: { description: 'Unknown tenant' } },
    handler: async ({ params, deps }) => {
      const t = await tenantOr404(deps, params.tenant);
      return { status: 200, body: view(t._id, await commerceSettingsData(deps.mongo).find(t._id)) };
    },
  }),
];
