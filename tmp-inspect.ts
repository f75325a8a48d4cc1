import { mkdirSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { startFerret, startTemporal } from './scripts/stack';
(async () => {
  mkdirSync('/tmp/inspect-logs', { recursive: true });
  const t = await startTemporal({ dataDir: '/tmp/inspect-data', logDir: '/tmp/inspect-logs', fast: true, uiPort: null });
  const f = await startFerret({ dataDir: '/tmp/inspect-data', logDir: '/tmp/inspect-logs' });
  try {
    const m = new MongoClient(f.uri); await m.connect();
    const client = new Client({ connection: await Connection.connect({ address: t.address }) });
    const pend = await m.db().collection('payment_intents').find({ status: 'pending', $or: [{ version: { $gt: 1 } }, { sub_status: { $ne: 'pending_created' } }] }).toArray();
    console.log('pending records', pend.length);
    for (const r of pend) {
      const h = client.workflow.getHandle(String(r._id));
      let d: any; try { d = await h.describe(); } catch (e) { d = { status: { name: String(e) } }; }
      console.log(r._id, 'v', r.version, 'sub', r.sub_status, 'wf', d.status?.name, 'created', r.created_at?.toISOString?.(), 'updated', r.updated_at?.toISOString?.());
    }
    await m.close();
  } finally { await t.proc.stop(); await f.proc.stop(); }
})();
