import { replayPage } from '../../../api/events/routes';

// A replay since T sends at most a page of events per call; the next call starts at the instant the answer
// names, and sends every event at that instant. Events made together share an instant.

const at = (ms: number) => ({ id: `evt_${ms}_${Math.random().toString(36).slice(2, 6)}`, created_at: new Date(Date.UTC(2026, 10, 27) + ms) });

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

test('a page ending between instants is kept whole; a page all at one instant is cut inside it (nothing else can move on)', () => {
  const apart = [at(1), at(2), at(3), at(4)];
  expect(replayPage(apart, 3)).toEqual({ events: apart.slice(0, 3), hasMore: true, nextSince: apart[3]!.created_at });
  const together = [at(5), at(5), at(5), at(5)];
  expect(replayPage(together, 3)).toEqual({ events: together.slice(0, 3), hasMore: true, nextSince: together[3]!.created_at });
  expect(replayPage(apart, 4)).toEqual({ events: apart, hasMore: false, nextSince: null });
});
