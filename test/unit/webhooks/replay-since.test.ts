import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { idKey } from '../../../api/events/deliveries';
import { eventRoutes, REPLAY_MAX_EVENTS } from '../../../api/events/routes';
import type { AppDeps } from '../../../api/deps';
import type { EventRecord } from '../../../platform/records';
import type { WebhookDeliveryInput } from '../../../workflows/webhook-delivery/messages';

// Replay since T, through its route: which deliveries each call starts. Temporal is a stand-in that refuses a
// workflow id it has started before (REJECT_DUPLICATE); the events are read by eventsSince's query, here
// evaluated in memory (FerretDB runs the same query in test/integration/webhook-endpoints.test.ts).

const TENANT = 'ten_eu_replaykeys';
const URL = 'https://hooks.example.com/orders';
const SECOND = 1000;
/** Two days ago, to the second (a replay reaches 30 days back). */
const S = new Date(Math.floor(Date.now() / SECOND) * SECOND - 2 * 86_400_000);

type Q = Record<string, unknown> & { 'endpoints.url': { $in: string[] }; created_at?: { $gte: Date }; $or?: [{ created_at: { $gt: Date } }, { created_at: Date; _id: { $gt: string } }] };

/** 600 events sent to URL, one a second from S + 1 s: more than one page. */
function store() {
  const events: EventRecord[] = Array.from({ length: REPLAY_MAX_EVENTS + 100 }, (_, i) => {
    const id = `evt_eu_replay${String(i + 1).padStart(6, '0')}`;
    return {
      _id: id,
      tenant_id: TENANT,
      type: 'payment.success',
      created_at: new Date(S.getTime() + (i + 1) * SECOND),
      data: {},
      object_id: 'pi_eu_replay',
      body: `{"id":"${id}"}`,
      format: 'envelope',
      source: { kind: 'payment_intent', id: 'pi_eu_replay' },
      endpoints: [{ url: URL, has_secret: false, index: 0 }],
    } as EventRecord;
  });
  const matches = (e: EventRecord, q: Q) =>
    e.tenant_id === q.tenant_id &&
    e.endpoints.some((ep) => q['endpoints.url'].$in.includes(ep.url)) &&
    (q.$or
      ? e.created_at > q.$or[0].created_at.$gt || (e.created_at.getTime() === q.$or[1].created_at.getTime() && e._id > q.$or[1]._id.$gt)
      : e.created_at >= q.created_at!.$gte);
  const c = {
    webhookEndpoints: { findOne: async () => null },
    events: {
      find: (q: Q) => ({ sort: () => ({ limit: (n: number) => ({ toArray: async () => events.filter((e) => matches(e, q)).slice(0, n) }) }) }),
    },
  };
  return { events, mongo: { c } };
}

function setup() {
  const { events, mongo } = store();
  const started = new Set<string>();
  /** Every send a call started, by event id. */
  const sends: string[] = [];
  const temporal = {
    workflow: {
      start: async (type: string, o: { workflowId: string; args: [WebhookDeliveryInput] }) => {
        if (started.has(o.workflowId)) throw new WorkflowExecutionAlreadyStartedError('already started', o.workflowId, type);
        started.add(o.workflowId);
        sends.push(o.args[0].eventId);
      },
    },
  };
  const deps = { mongo, temporal, config: { TEMPORAL_WEBHOOK_TASK_QUEUE: 'webhooks' } } as unknown as AppDeps;
  const route = eventRoutes.find((r) => r.method === 'post' && r.path === '/events/replay')!;
  const auth = { tenantId: TENANT, region: 'eu', keyKind: 'secret' as const, claims: [] };
  const replay = async (body: Record<string, unknown>) => {
    const before = sends.length;
    const r = await route.handler({ body: route.body!.parse(body), auth, deps, params: {}, query: {}, ctx: {} as never, version: { requested: 'v202607', served: 'v202607' } });
    const answer = r.body as { deliveries: string[]; already_started: number; has_more: boolean; next_since: string | null };
    return { ...answer, sent: sends.slice(before) };
  };
  return { events, replay, sends };
}

const ids = (events: EventRecord[]) => events.map((e) => e._id);

test('every page of one replay shares its key: a page sent again starts nothing, and a new replay from S - 1 s sends its second page too', async () => {
  const { events, replay } = setup();
  const firstPage = ids(events.slice(0, REPLAY_MAX_EVENTS));
  const secondPage = ids(events.slice(REPLAY_MAX_EVENTS));

  // Last week's replay from S, both pages.
  const a1 = await replay({ url: URL, since: S.toISOString() });
  expect(a1).toMatchObject({ has_more: true, next_since: events[REPLAY_MAX_EVENTS]!.created_at.toISOString(), sent: firstPage });
  const a2 = await replay({ url: URL, since: a1.next_since, origin: S.toISOString() });
  expect(a2).toMatchObject({ has_more: false, already_started: 0, sent: secondPage });
  // Its second page sent again (a retried call): nothing twice.
  expect(await replay({ url: URL, since: a1.next_since, origin: S.toISOString() })).toMatchObject({ already_started: secondPage.length, sent: [], deliveries: a2.deliveries });

  // Replay again, as the docs say, with another since: the same page boundary, and its second page is sent all the same.
  const from = new Date(S.getTime() - SECOND).toISOString();
  const b1 = await replay({ url: URL, since: from });
  expect(b1).toMatchObject({ already_started: 0, next_since: a1.next_since, sent: firstPage });
  const b2 = await replay({ url: URL, since: b1.next_since, origin: from });
  expect(b2).toMatchObject({ already_started: 0, sent: secondPage });
});

test("a replay from an earlier replay's page boundary sends every event from there, and the first call's ids are what they were", async () => {
  const { events, replay } = setup();
  const a1 = await replay({ url: URL, since: S.toISOString() });
  await replay({ url: URL, since: a1.next_since, origin: S.toISOString() });
  // A first call keys its deliveries as before (a first call retried across the upgrade starts nothing twice).
  expect(a1.deliveries[0]).toBe(`${events[0]!._id}-0-replay-${idKey(TENANT, URL, S.toISOString())}`);

  const fromBoundary = await replay({ url: URL, since: a1.next_since });
  expect(fromBoundary).toMatchObject({ already_started: 0, has_more: false, sent: ids(events.slice(REPLAY_MAX_EVENTS)) });
});

test('origin is an instant at or before since', async () => {
  const { replay } = setup();
  await expect(replay({ url: URL, since: S.toISOString(), origin: new Date(S.getTime() + SECOND).toISOString() })).rejects.toMatchObject({ code: 'parameter_invalid', param: 'origin' });
  await expect(replay({ url: URL, since: S.toISOString(), origin: 'last week' })).rejects.toMatchObject({ code: 'parameter_invalid', param: 'origin' });
});
