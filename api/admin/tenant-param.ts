import { z } from 'zod';
import { notFound } from '../../domain/errors';
import { tenantData } from '../../data/tenants';
import type { AppDeps } from '../deps';

// What every admin route under /admin/tenants/{tenant} shares: the path parameter and the tenant it names.

export const tenantParam = z.object({ tenant: z.string() }).strict();

/** The tenant the path names, or 404 naming `tenant`. */
export async function tenantOr404(deps: AppDeps, id: string) {
  const t = await tenantData(deps.mongo).find(id);
  if (!t) throw notFound('tenant', id, 'tenant');
  return t;
}
