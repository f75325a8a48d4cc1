import { replayPage } from '../../../api/events/routes';

// A replay since T sends at most a page of events per call; the next call starts at the instant the answer
// names, and sends every event at that instant. Events made together share an instant.

let seq = 0;
/** An event at `ms` past a fixed instant; ids rise in the order events are made, as the store sorts ties. */
const at = (ms: number) => ({ _id: `evt_eu_${String(++seq).padStart(8, '0')}`, created_at: new Date(Date.UTC(2026, 10, 27) + ms) });

test('a page that would end inside a group of events sharing an instant ends before it: the next page sends the group whole, once', () => {
  const found = [at(1), at(2), at(3), at(3), at(3), at(4)];
  const first = replayPage(found, 4); // found holds one event past the page, as the route asks for
  expect(first.events).toEqual(found.slice(0, 2));
  expect(first).toMatchObject({ hasMore: true, nextSince: found[2]!.created_at });
  // Every event is sent by exactly one page.
  const second = replayPage(found.filter((e) => e.created_at >= first.nextSince!), 4);
  expect([...first.events, ...second.events]).toEqual(found);
  expect(second).toMatchObject({ hasMore: false, nextSince: null });
});

test('a page ending between instants is kept whole; a page all at one instant is cut inside it and the next goes on after its last event', () => {
  const apart = [at(1), at(2), at(3), at(4)];
  expect(replayPage(apart, 3)).toEqual({ events: apart.slice(0, 3), hasMore: true, nextSince: apart[3]!.created_at, nextAfter: null });
  expect(replayPage(apart, 4)).toEqual({ events: apart, hasMore: false, nextSince: null, nextAfter: null });
  // Seven events at one instant, three a page: each page goes on after the last one sent, none twice, none skipped.
  const together = [at(5), at(5), at(5), at(5), at(5), at(5), at(5), at(6)];
  const sent: string[] = [];
  let cursor: { since: Date; after: string | null } = { since: together[0]!.created_at, after: null };
  for (let calls = 0; calls < 10; calls++) {
    // What the store answers for (since, starting_after): data/webhook-endpoints.ts eventsSince.
    const found = together.filter((e) => e.created_at > cursor.since || (e.created_at.getTime() === cursor.since.getTime() && (cursor.after === null || e._id > cursor.after))).slice(0, 4);
    const page = replayPage(found, 3);
    sent.push(...page.events.map((e) => e._id));
    if (!page.hasMore) break;
    cursor = { since: page.nextSince!, after: page.nextAfter };
  }
  expect(sent).toEqual(together.map((e) => e._id));
});
