import { z } from 'zod';
import { conflict } from '../../domain/errors';
import { MAX_PREVIOUS, ROTATION_OVERLAP_MS, SigningSecretRotationConflict, SigningSecretRotationLimit, webhookSigningSecretData } from '../../data/webhook-signing-secrets';
import { idempotencyKeySchema } from '../http/common-schemas';
import type { WebhookSigningSecretRecord } from '../../platform/records';
import { route, type RouteDef } from '../http/route';
import { tenantOr404, tenantParam } from './tenant-param';

// Admin API of a tenant's webhook signing secret: the `whsec_...` secret every delivery to any of the
// tenant's endpoints is signed with (Standard Webhooks headers webhook-id, webhook-timestamp,
// webhook-signature), which the merchant gives to a Standard Webhooks library to verify them. Created on
// first use; rotating it keeps the previous one signing beside the new one for 24 hours.

const common = { versions: 'unversioned' as const, auth: 'admin' as const, tags: ['Admin'] };

const signingSecretView = z.object({
  tenant: z.string(),
  secret: z.string().meta({
    description: "The current signing secret, `whsec_` + base64 of 32 random bytes: give it as is to a Standard Webhooks library's `Webhook` to verify deliveries",
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwDdwQ4PtUz6Y=',
  }),
  created_at: z.string().meta({ description: 'When this secret became current (ISO 8601)' }),
  previous: z
    .array(z.object({ expires_at: z.string().meta({ description: 'Until when deliveries are also signed with this rotated-out secret (ISO 8601)' }) }))
    .meta({ description: 'Rotated-out secrets that still sign deliveries (beside the current one, never shown again), newest first' }),
});

function view(r: WebhookSigningSecretRecord, now: Date): z.infer<typeof signingSecretView> {
  return {
    tenant: r.tenant_id,
    secret: r.secret,
    created_at: r.created_at.toISOString(),
    previous: r.previous.filter((p) => p.expires_at.getTime() > now.getTime()).map((p) => ({ expires_at: p.expires_at.toISOString() })),
  };
}

export const webhookSigningRoutes: RouteDef[] = [
  route({
    ...common,
    method: 'get',
    path: '/admin/tenants/:tenant/webhook-signing-secret',
    summary: "A tenant's webhook signing secret (`whsec_...`), created on first use",
    params: tenantParam,
    responses: {
      200: { description: 'The current signing secret', schema: signingSecretView },
      404: { description: 'Unknown tenant' },
    },
    handler: async ({ params, deps }) => {
      const t = await tenantOr404(deps, params.tenant);
      const now = new Date();
      return { status: 200, body: view(await webhookSigningSecretData(deps.mongo).ensure(t._id, now), now) };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/admin/tenants/:tenant/webhook-signing-secret/rotate',
    summary: `Replace a tenant's webhook signing secret; the previous one keeps signing deliveries for ${ROTATION_OVERLAP_MS / 3_600_000} hours`,
    description:
      'With `idempotency_key` (or the `Idempotency-Key` header), a rotate sent again with the key of the rotation that made the current secret answers that rotation (200, the same secret) instead of rotating again, ' +
      'whether the first try has ended or is still running: send one with every rotate you may retry. Without a key, of two rotations that read the same secret one rotates and the other is refused (409), ' +
      `but a retry that reads after the first one's write rotates again. At most ${MAX_PREVIOUS} previous secrets sign beside the current one: a rotation that would keep a fourth is refused until the oldest expires.`,
    params: tenantParam,
    body: z
      .object({
        idempotency_key: idempotencyKeySchema
          .optional()
          .meta({ description: 'Makes a retried rotate safe: the same key as the rotation that made the current secret answers that rotation instead of rotating again' }),
      })
      .strict(),
    responses: {
      200: { description: 'The new signing secret (or, for the key of the last rotation, the one it made); until `previous[].expires_at`, deliveries carry a signature with each', schema: signingSecretView },
      404: { description: 'Unknown tenant' },
      409: {
        description:
          'Another rotation of this tenant read the same secret at the same time (`webhook_signing_secret_conflict`): read the secret, rotate again if needed; ' +
          `or ${MAX_PREVIOUS} previous secrets still sign (\`webhook_signing_secret_rotation_limit\`): rotate again once the oldest expires (\`previous[].expires_at\`)`,
      },
    },
    handler: async ({ params, body, deps }) => {
      const t = await tenantOr404(deps, params.tenant);
      const now = new Date();
      try {
        return { status: 200, body: view(await webhookSigningSecretData(deps.mongo).rotate(t._id, now, body.idempotency_key), now) };
      } catch (err) {
        if (err instanceof SigningSecretRotationConflict) throw conflict('webhook_signing_secret_conflict', err.message);
        if (err instanceof SigningSecretRotationLimit) throw conflict('webhook_signing_secret_rotation_limit', err.message);
        throw err;
      }
    },
  }),
];
