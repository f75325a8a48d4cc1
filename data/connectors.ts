import type { Mongo } from '../platform/mongo';
import type { ConnectorRecord } from '../platform/records';

/** A tenant's gateway connectors. */
export function connectorData(mongo: Mongo) {
  const c = mongo.c.connectors;
  return {
    find: (tenantId: string, id: string) => c.findOne({ _id: id, tenant_id: tenantId }),
    ofTenant: (tenantId: string) => c.find({ tenant_id: tenantId }).toArray(),
    some: (tenantId: string, ids: string[]) => c.find({ _id: { $in: ids }, tenant_id: tenantId }).toArray(),
    insert: async (connector: ConnectorRecord) => void (await c.insertOne(connector)),
  };
}
