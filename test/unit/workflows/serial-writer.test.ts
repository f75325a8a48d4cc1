import { serialWriter } from '../../../workflows/serial-writer';

// A workflow's record writes: one at a time, each a higher version. With a floor (every workflow's grows with
// its history: historyFloor), a task run again after its worker died numbers its writes above the dead attempt's.

type Patch = { version: number; status: string };
/** Outside a workflow there is no history: tests give the floor themselves, none where it plays no part. */
const noFloor = () => 0;

/** A store that keeps a write only over an older version, like data/versioned-writes.ts. */
function store() {
  const doc = { version: 0, status: 'none' };
  const save = async (p: Patch) => {
    if (p.version <= doc.version) return 'stale';
    Object.assign(doc, p);
    return 'applied';
  };
  return { doc, save };
}

test('writes go one at a time, in order, each a version above the last', async () => {
  const s = store();
  const order: number[] = [];
  const w = serialWriter<Patch>(0, async (p) => {
    await new Promise((r) => setTimeout(r, 5 - p.version)); // a later write is quicker, yet lands later
    order.push(p.version);
    return s.save(p);
  }, noFloor);
  void w.write({ status: 'pending' });
  void w.write({ status: 'processing' });
  await w.write({ status: 'success' });
  expect(order).toEqual([1, 2, 3]);
  expect(s.doc).toEqual({ version: 3, status: 'success' });
});

test('a task run again with more history writes above what its dead attempt wrote, so its state is not refused as stale', async () => {
  const s = store();
  let historyLength = 3;
  const floor = () => historyLength * 1000;
  // The first attempt of the first task: its record write lands, then the worker dies before the task completes.
  const dead = serialWriter<Patch>(0, s.save, floor);
  expect(await dead.write({ status: 'pending' })).toBe('applied');
  // The task is run again (the timed-out attempt added its events), now with a cancel that arrived meanwhile.
  historyLength = 6;
  const again = serialWriter<Patch>(0, s.save, floor);
  expect(await again.write({ status: 'canceled' })).toBe('applied');
  expect(s.doc.status).toBe('canceled');

  // Without a floor both attempts number from 1, and the second is refused.
  const t = store();
  await serialWriter<Patch>(0, t.save, noFloor).write({ status: 'pending' });
  expect(await serialWriter<Patch>(0, t.save, noFloor).write({ status: 'canceled' })).toBe('stale');
  expect(t.doc.status).toBe('pending');
});

test('within one task the versions count up from the floor; the next task starts above them', async () => {
  const s = store();
  let historyLength = 3;
  const w = serialWriter<Patch>(7, s.save, () => 7 + historyLength * 1000);
  await w.write({ status: 'a' });
  await w.write({ status: 'b' });
  expect(w.version()).toBe(3008);
  historyLength = 9;
  await w.write({ status: 'c' });
  expect(w.version()).toBe(9007);
});
