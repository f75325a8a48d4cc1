import { z } from 'zod';
import { invalidRequest, notFound } from '../../domain/errors';
import { newId } from '../../platform/ids';
import { generateKey, KNOWN_CLAIMS } from '../../platform/keys';
import { route, type RouteDef } from '../http/route';
import { createConnector, createTenant, issueKey } from './provisioning';
import { PAYMENT_METHOD_NAMES } from '../payment-methods/catalog';
import type { AppDeps } from '../deps';
import { forgetApiKey } from '../http/auth';
import { forgetCheckoutConfig, unsupportedFormMethods } from '../payment-methods/resolve';
import { apiKeyData } from '../../data/api-keys';
import { connectorData } from '../../data/connectors';
import { orchestratorData } from '../../data/orchestrators';
import { paymentFormData } from '../../data/payment-forms';
import { payoutTimeoutSeconds } from '../payouts/schemas';
import { tenantOr404, tenantParam } from './tenant-param';
import { operatorActionData } from '../../data/operator-actions';

const idList = (prefix: string) => z.array(z.string().startsWith(`${prefix}_`)).min(1).max(20);
const methods = z.array(z.enum(PAYMENT_METHOD_NAMES)).min(1);


async function connectorsOfTenant(deps: AppDeps, tenantId: string, ids: string[]) {
  const found = await connectorData(deps.mongo).some(tenantId, ids);
  const missing = ids.find((id) => !found.some((c) => c._id === id));
  if (missing) throw invalidRequest('connector_invalid', `No connector ${missing} for this tenant`, 'connectors');
  return found;
}

const common = { versions: 'unversioned' as const, auth: 'admin' as const, tags: ['Admin'] };

/** Runs an audited change; one that throws finishes its rows `failed` (else they would read `requested` for good). */
async function finishedOrFailed<T>(audit: ReturnType<typeof operatorActionData>, rows: string | string[], change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (err) {
    const message = err instanceof Error ? err.message.slice(0, 200) : 'failed';
    for (const row of [rows].flat()) await audit.finish(row, 'failed', { code: 'internal_error', message }).catch(() => undefined);
    throw err;
  }
}

// Who issues or revokes a key, and why: kept in `operator_actions` (GET /admin/operations?target=<key id>).
// Optional, as the admin token is one shared secret: without a name the row says so.
const UNNAMED = 'unnamed (admin token)';
const stamp = {
  operator: z.string().trim().min(1).max(100).default(UNNAMED).meta({ description: 'Who acts (a name or an e-mail): kept in the audit' }),
  reason: z.string().trim().max(500).default('').meta({ description: 'Why: kept in the audit' }),
};

export const adminRoutes: RouteDef[] = [
  route({
    ...common,
    method: 'post',
    path: '/admin/tenants',
    summary: 'Create a tenant with its first secret and publishable keys (shown once)',
    body: z
      .object({
        name: z.string().min(1).max(200),
        region: z.string(),
        payout_timeout_seconds: payoutTimeoutSeconds
          .optional()
          .meta({ description: "How long this tenant's payouts may take before they are canceled at the gateway (default 259200, 72 hours); a payout's own payout_timeout_seconds wins" }),
        ...stamp,
      })
      .strict(),
    responses: {
      201: {
        description: 'Created (audited: GET /admin/operations?target=<tenant>, and ?target=<api_key> for each of its first keys)',
        schema: z.object({ tenant: z.string(), tenant_id: z.number().int(), secret_key: z.string(), publishable_key: z.string() }),
      },
    },
    handler: async ({ body, deps }) => {
      if (!deps.config.REGIONS.includes(body.region))
        throw invalidRequest('region_invalid', `Unknown region '${body.region}'; served: ${deps.config.REGIONS.join(', ')}`, 'region');
      const { operator, reason, ...input } = body;
      // As for a key issued later: every id drawn first and every row written before anything exists, so a
      // process dying between them leaves `requested` rows, never a tenant or key no row names.
      const id = newId('ten', body.region);
      const keys = { secret: generateKey('secret', body.region, deps.config.KEY_HASH_SECRET), publishable: generateKey('publishable', body.region, deps.config.KEY_HASH_SECRET) };
      const audit = operatorActionData(deps.mongo);
      const stamped = { tenantId: id, region: body.region, operator, reason };
      const firstKey = (kind: string) => `a ${kind} key, claims: none (the tenant's first)`;
      const tenantRow = await audit.begin({ ...stamped, action: 'create_tenant', target: id, message: `tenant '${body.name}'` });
      const keyRows: { row: string; message: string }[] = [];
      for (const kind of ['secret', 'publishable'] as const)
        keyRows.push({ row: await audit.begin({ ...stamped, action: 'issue_api_key', target: keys[kind].lookupId, message: firstKey(kind) }), message: firstKey(kind) });
      const { tenant, secretKey, publishableKey } = await finishedOrFailed(audit, [tenantRow, ...keyRows.map((k) => k.row)], () =>
        createTenant(deps.mongo, deps.config.KEY_HASH_SECRET, { ...input, id }, keys),
      );
      await audit.finish(tenantRow, 'done', { message: `tenant '${body.name}', keys ${keys.secret.lookupId} and ${keys.publishable.lookupId}` });
      for (const k of keyRows) await audit.finish(k.row, 'done', { message: k.message });
      return { status: 201, body: { tenant: tenant._id, tenant_id: tenant.number, secret_key: secretKey, publishable_key: publishableKey } };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/admin/tenants/:tenant',
    summary: 'A tenant with its connectors, payment forms, orchestrators and key ids',
    params: tenantParam,
    responses: { 200: { description: 'The tenant' } },
    handler: async ({ params, deps }) => {
      const t = await tenantOr404(deps, params.tenant);
      const [keys, connectors, forms, orchestrators] = await Promise.all([
        apiKeyData(deps.mongo).ofTenant(t._id),
        connectorData(deps.mongo).ofTenant(t._id),
        paymentFormData(deps.mongo).ofTenant(t._id),
        orchestratorData(deps.mongo).ofTenant(t._id),
      ]);
      return {
        status: 200,
        body: {
          tenant: t._id,
          tenant_id: t.number, // the integer of the older interface
          name: t.name,
          region: t.region,
          created_at: t.created_at.toISOString(),
          api_keys: keys.map((k) => ({ api_key: k._id, kind: k.kind, claims: k.claims, revoked: k.revoked_at !== null })),
          connectors: connectors.map(({ _id, tenant_id: _t, ...rest }) => ({ connector: _id, ...rest })),
          payment_forms: forms.map(({ _id, tenant_id: _t, ...rest }) => ({ payment_form: _id, ...rest })),
          orchestrators: orchestrators.map(({ _id, tenant_id: _t, ...rest }) => ({ orchestrator: _id, ...rest })),
        },
      };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/admin/tenants/:tenant/api-keys',
    summary: 'Issue another key (secret by default) with claims',
    params: tenantParam,
    body: z
      .object({ claims: z.array(z.enum(KNOWN_CLAIMS)).max(10).default([]), kind: z.enum(['secret', 'publishable']).default('secret'), ...stamp })
      .strict(),
    responses: { 201: { description: 'Created (audited: GET /admin/operations?target=<api_key>)', schema: z.object({ api_key: z.string(), claims: z.array(z.string()) }) } },
    handler: async ({ params, body, deps }) => {
      const t = await tenantOr404(deps, params.tenant);
      const claims = [...new Set(body.claims)];
      // The key's id is drawn first and its audit row written before the key exists: a process dying between
      // them leaves a `requested` row for a key that may exist, never a key no row names.
      const audit = operatorActionData(deps.mongo);
      const generated = generateKey(body.kind, t.region, deps.config.KEY_HASH_SECRET);
      const what = `a ${body.kind} key, claims: ${claims.join(', ') || 'none'}`;
      const row = await audit.begin({ action: 'issue_api_key', target: generated.lookupId, tenantId: t._id, region: t.region, operator: body.operator, reason: body.reason, message: what });
      const { key, id } = await finishedOrFailed(audit, row, () => issueKey(deps.mongo, deps.config.KEY_HASH_SECRET, t._id, t.region, body.kind, claims, generated));
      await audit.finish(row, 'done', { message: what });
      return { status: 201, body: { api_key: id, [body.kind === 'secret' ? 'secret_key' : 'publishable_key']: key, claims } };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/admin/tenants/:tenant/api-keys/:api_key/revoke',
    summary: 'Revoke a key; it is refused from the next request on',
    params: z.object({ tenant: z.string(), api_key: z.string() }).strict(),
    body: z.object(stamp).strict().optional(),
    responses: { 200: { description: 'Revoked (audited: GET /admin/operations?target=<api_key>)' } },
    handler: async ({ params, body, deps }) => {
      const t = await tenantOr404(deps, params.tenant);
      const { operator, reason } = body ?? { operator: UNNAMED, reason: '' };
      const audit = operatorActionData(deps.mongo);
      const row = await audit.begin({ action: 'revoke_api_key', target: params.api_key, tenantId: t._id, region: t.region, operator, reason });
      const revoked = await finishedOrFailed(audit, row, () => apiKeyData(deps.mongo).revoke(params.tenant, params.api_key));
      if (revoked === 'missing') {
        await audit.finish(row, 'refused', { code: 'resource_missing', message: 'no such key of this tenant' });
        throw notFound('api key', params.api_key, 'api_key');
      }
      forgetApiKey(params.api_key);
      await audit.finish(row, 'done', { message: revoked === 'revoked' ? 'revoked' : 'revoked already: nothing changed' });
      return { status: 200, body: { api_key: params.api_key, revoked: true } };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/admin/tenants/:tenant/connectors',
    summary: 'Connect a gateway to a tenant',
    params: tenantParam,
    body: z
      .object({
        gateway: z.string(),
        live: z.boolean(),
        payment_methods: methods.default(['card']),
        payouts: z.boolean().default(false),
        sandbox_behavior: z
          .enum(['down', 'timeout'])
          .optional()
          .describe('Sandbox gateway only, for failover drills: `down` refuses every connection; `timeout` never answers a charge (status queries find none).'),
      })
      .strict(),
    responses: { 201: { description: 'Created', schema: z.object({ connector: z.string() }) } },
    handler: async ({ params, body, deps }) => {
      const t = await tenantOr404(deps, params.tenant);
      if (!deps.gateways.names().includes(body.gateway))
        throw invalidRequest('gateway_invalid', `Unknown gateway '${body.gateway}'; known: ${deps.gateways.names().join(', ')}`, 'gateway');
      if (body.sandbox_behavior && body.gateway !== 'sandbox')
        throw invalidRequest('parameter_invalid', 'sandbox_behavior is for connectors of the sandbox gateway only', 'sandbox_behavior');
      const id = await createConnector(deps.mongo, t._id, t.region, body);
      forgetCheckoutConfig(t._id);
      return { status: 201, body: { connector: id } };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/admin/tenants/:tenant/payment-forms',
    summary: 'Create a payment form (a checkout over some connectors)',
    params: tenantParam,
    body: z
      .object({
        connectors: idList('con'),
        payment_methods: methods
          .optional()
          .describe("Narrows the form's checkout to these methods; each must be taken by one of its connectors (else 400 naming payment_methods[i]). Default: what its connectors take."),
        default: z.boolean().default(false),
        live: z.boolean().default(true),
      })
      .strict(),
    responses: { 201: { description: 'Created', schema: z.object({ payment_form: z.string() }) } },
    handler: async ({ params, body, deps }) => {
      const t = await tenantOr404(deps, params.tenant);
      const formConnectors = await connectorsOfTenant(deps, t._id, body.connectors);
      // A method none of the form's connectors takes could never be offered: the checkout shows only what
      // a connector can take (api/payment-methods/resolve.ts).
      const [unsupported] = unsupportedFormMethods(body.payment_methods ?? [], formConnectors);
      if (unsupported !== undefined)
        throw invalidRequest(
          'payment_method_unsupported',
          `No connector of this form takes ${body.payment_methods![unsupported]}`,
          `payment_methods[${unsupported}]`,
        );
      const id = newId('pf', t.region);
      // One default per tenant: the newest wins.
      await paymentFormData(deps.mongo).insert({
        _id: id,
        tenant_id: t._id,
        connectors: body.connectors,
        payment_methods: body.payment_methods ?? null,
        default: body.default,
        live: body.live,
        created_at: new Date(),
      });
      forgetCheckoutConfig(t._id); // after the write, so no read in between caches the old config
      return { status: 201, body: { payment_form: id } };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/admin/tenants/:tenant/orchestrators',
    summary: 'Create an orchestrator: an ordered set of connectors tried in turn',
    params: tenantParam,
    body: z
      .object({
        connectors: idList('con'),
        strategy: z.enum(['priority']).default('priority'),
        live: z.boolean().default(true),
        default: z.boolean().default(false).describe("The tenant's default: intents created without a pin try its connectors in turn, failing over."),
      })
      .strict(),
    responses: { 201: { description: 'Created', schema: z.object({ orchestrator: z.string() }) } },
    handler: async ({ params, body, deps }) => {
      const t = await tenantOr404(deps, params.tenant);
      await connectorsOfTenant(deps, t._id, body.connectors);
      const id = newId('orc', t.region);
      await orchestratorData(deps.mongo).insert({ _id: id, tenant_id: t._id, ...body, created_at: new Date() });
      forgetCheckoutConfig(t._id); // after the write, so no read in between caches the old config
      return { status: 201, body: { orchestrator: id } };
    },
  }),
];
