import { mkdirSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startTemporal } from './scripts/stack';
const E = temporal.api.enums.v1.EventType;
(async () => {
  mkdirSync('/tmp/inspect-logs', { recursive: true });
  const t = await startTemporal({ dataDir: '/tmp/inspect-data', logDir: '/tmp/inspect-logs', fast: true, uiPort: null });
  try {
    const client = new Client({ connection: await Connection.connect({ address: t.address }) });
    const h = client.workflow.getHandle(process.argv[2]!);
    const hist = await h.fetchHistory();
    for (const e of hist.events ?? []) {
      const at = new Date(Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6).toISOString();
      let extra = '';
      const a = e as any;
      if (a.markerRecordedEventAttributes) {
        const d = a.markerRecordedEventAttributes.details ?? {};
        extra = JSON.stringify(Object.fromEntries(Object.entries(d).map(([k, v]: any) => [k, (v.payloads ?? []).map((p: any) => Buffer.from(p.data ?? []).toString().slice(0, 120))]))).slice(0, 300);
      }
      if (a.activityTaskScheduledEventAttributes) extra = a.activityTaskScheduledEventAttributes.activityType?.name;
      if (a.workflowTaskFailedEventAttributes) extra = JSON.stringify(a.workflowTaskFailedEventAttributes.cause) + ' ' + (a.workflowTaskFailedEventAttributes.failure?.message ?? '');
      if (a.workflowTaskTimedOutEventAttributes) extra = 'timeout';
      if (a.workflowExecutionUpdateAcceptedEventAttributes) extra = a.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest?.input?.name;
      if (a.workflowExecutionUpdateCompletedEventAttributes) extra = JSON.stringify(a.workflowExecutionUpdateCompletedEventAttributes.outcome?.success?.payloads?.map((p: any) => Buffer.from(p.data ?? []).toString()) ?? a.workflowExecutionUpdateCompletedEventAttributes.outcome?.failure?.message);
      if (a.activityTaskCompletedEventAttributes) extra = (a.activityTaskCompletedEventAttributes.result?.payloads ?? []).map((p: any) => Buffer.from(p.data ?? []).toString().slice(0, 150)).join();
      if (a.activityTaskFailedEventAttributes) extra = a.activityTaskFailedEventAttributes.failure?.message;
      if (a.activityTaskTimedOutEventAttributes) extra = 'timed out';
      console.log(String(e.eventId), at, E[e.eventType!]?.replace('EVENT_TYPE_', ''), extra ?? '');
    }
  } finally { await t.proc.stop(); }
})();
