import type { Mongo } from '../platform/mongo';
import type { OrchestratorRecord } from '../platform/records';

/** A tenant's orchestrators: ordered connectors tried in turn. */
export function orchestratorData(mongo: Mongo) {
  const c = mongo.c.orchestrators;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    ofTenant: (tenantId: string) => c.find({ tenant_id: tenantId }).toArray(),
    /** The tenant's live default orchestrator (the newest when several were ever made default). */
    liveDefault: async (tenantId: string) => (await c.find({ tenant_id: tenantId, default: true, live: true }).sort({ created_at: -1 }).limit(1).toArray())[0] ?? null,
    /** Inserts an orchestrator; a new default first takes the flag off the others. */
    insert: async (orchestrator: OrchestratorRecord) => {
      if (orchestrator.default) await c.updateMany({ tenant_id: orchestrator.tenant_id }, { $set: { default: false } });
      await c.insertOne(orchestrator);
    },
  };
}
