import { blockId, blockRange, createSequences } from '../../../data/sequences';
import type { Mongo } from '../../../platform/mongo';
import type { SequenceBlockRecord } from '../../../platform/records';

// The hi/lo allocator against a stand-in for the sequence_blocks collection that behaves like FerretDB where
// it matters: an insert of a taken `_id` is refused with code 11000, and every call takes a moment, so
// concurrent callers really interleave. test/integration/sequences.test.ts runs the same against FerretDB.

function blockStore() {
  const blocks = new Map<string, SequenceBlockRecord>();
  const calls = { inserts: 0, refused: 0, reads: 0 };
  let failNext: Error | undefined;
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  const collection = {
    insertOne: async (doc: SequenceBlockRecord) => {
      await tick();
      calls.inserts += 1;
      if (failNext) {
        const err = failNext;
        failNext = undefined;
        throw err;
      }
      if (blocks.has(doc._id)) {
        calls.refused += 1;
        throw Object.assign(new Error('E11000 duplicate key error'), { code: 11000 });
      }
      blocks.set(doc._id, { ...doc });
    },
    find: (filter: { name: string }) => ({
      sort: () => ({
        limit: (n: number) => ({
          toArray: async () => {
            await tick();
            calls.reads += 1;
            return [...blocks.values()].filter((b) => b.name === filter.name).sort((a, b) => b.block - a.block).slice(0, n);
          },
        }),
      }),
    }),
  };
  const mongo = { c: { sequenceBlocks: collection } } as unknown as Mongo;
  return { mongo, blocks, calls, failOnce: (err: Error) => void (failNext = err) };
}

const all = (n: number, next: () => Promise<number>) => Promise.all(Array.from({ length: n }, next));
const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

test('block 1 starts at 1; a block of n numbers follows the one before it', () => {
  expect(blockRange(1, 100)).toEqual({ first: 1, last: 100 });
  expect(blockRange(3, 100)).toEqual({ first: 201, last: 300 });
  expect(blockRange(7, 1)).toEqual({ first: 7, last: 7 });
  expect(blockId('payouts', 12)).toBe('payouts:12');
});

test('numbers start at 1, and a block is handed out without asking the server again', async () => {
  const { mongo, calls } = blockStore();
  const seq = createSequences(mongo);
  const got: number[] = [];
  for (let i = 0; i < 100; i++) got.push(await seq.next('x'));
  expect(got).toEqual(oneTo(100));
  expect(calls).toMatchObject({ inserts: 1, reads: 1 });
  expect(await seq.next('x')).toBe(101);
  expect(calls).toMatchObject({ inserts: 2, reads: 1 }); // the next block is probed by inserting, not read
});

test('callers that find the block empty share one reservation instead of each reserving one', async () => {
  const { mongo, calls } = blockStore();
  const seq = createSequences(mongo, { blockSize: 100 });
  expect(sorted(await all(250, () => seq.next('x')))).toEqual(oneTo(250));
  expect(calls).toMatchObject({ inserts: 3, reads: 1 });
});

test('sequences of different names are apart, each from 1', async () => {
  const { mongo, blocks } = blockStore();
  const seq = createSequences(mongo, { blockSize: 10 });
  expect([await seq.next('payouts'), await seq.next('refunds'), await seq.next('payouts')]).toEqual([1, 1, 2]);
  expect([...blocks.keys()].sort()).toEqual(['payouts:1', 'refunds:1']);
});

test('two processes never hand out the same number, and each hands out increasing ones', async () => {
  const { mongo } = blockStore();
  const a = createSequences(mongo, { blockSize: 10 });
  const b = createSequences(mongo, { blockSize: 10 });
  const fromA: number[] = [];
  const fromB: number[] = [];
  await Promise.all(oneTo(300).map(async (i) => (i % 2 ? fromA : fromB).push(await (i % 2 ? a : b).next('x'))));
  expect(new Set([...fromA, ...fromB]).size).toBe(300);
  expect(fromA).toEqual(sorted(fromA));
  expect(fromB).toEqual(sorted(fromB));
});

test('blocks of one give dense numbers across processes', async () => {
  const { mongo } = blockStore();
  const a = createSequences(mongo, { blockSize: 1 });
  const b = createSequences(mongo, { blockSize: 1 });
  const got = await Promise.all(oneTo(200).map((i) => (i % 2 ? a : b).next('x')));
  expect(sorted(got)).toEqual(oneTo(200));
});

test('a process that fell behind probes the next blocks, then reads the highest one again', async () => {
  const { mongo, calls } = blockStore();
  const behind = createSequences(mongo, { blockSize: 1 });
  const ahead = createSequences(mongo, { blockSize: 1 });
  expect(await behind.next('x')).toBe(1);
  for (let i = 2; i <= 20; i++) expect(await ahead.next('x')).toBe(i);
  const before = { ...calls };
  expect(await behind.next('x')).toBe(21);
  // Blocks 2..5 refused, then one read finds 20, then 21 is inserted.
  expect(calls.refused - before.refused).toBe(4);
  expect(calls.reads - before.reads).toBe(1);
});

test('a process started later never reuses a number, even one a running process still holds', async () => {
  const { mongo } = blockStore();
  const first = createSequences(mongo, { blockSize: 100 });
  expect(await first.next('x')).toBe(1); // holds 2..100 unused
  const later = createSequences(mongo, { blockSize: 100 });
  expect(await later.next('x')).toBe(101);
  expect(await first.next('x')).toBe(2);
});

test('blocks of another size for the same name are refused, not overlapped', async () => {
  const { mongo } = blockStore();
  await createSequences(mongo, { blockSize: 100 }).next('x');
  await expect(createSequences(mongo, { blockSize: 1 }).next('x')).rejects.toThrow("sequence 'x' is kept in blocks of 100, not 1");
  expect(() => createSequences(mongo, { blockSize: 0 })).toThrow('blockSize');
  expect(() => createSequences(mongo, { blockSize: 2.5 })).toThrow('blockSize');
});

test('a failed reservation fails every caller waiting on it; the next call tries again', async () => {
  const { mongo, failOnce } = blockStore();
  const seq = createSequences(mongo, { blockSize: 5 });
  expect(await seq.next('x')).toBe(1);
  for (let i = 2; i <= 5; i++) await seq.next('x');
  failOnce(new Error('connection reset'));
  const waiting = await Promise.allSettled([seq.next('x'), seq.next('x'), seq.next('x')]);
  expect(waiting.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
  expect(await seq.next('x')).toBe(6);
});
