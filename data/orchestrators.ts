import type { Mongo } from '../platform/mongo';
import type { OrchestratorRecord } from '../platform/records';

/** A tenant's orchestrators: ordered connectors tried in turn. */
export function orchestratorData(mongo: Mongo) {
  const c = mongo.c.orchestrators;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    ofTenant: (tenantId: string) => c.find({ tenant_id: tenantId }).toArray(),
    insert: async (orchestrator: OrchestratorRecord) => void (await c.insertOne(orchestrator)),
  };
}
