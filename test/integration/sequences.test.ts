import { createSequences } from '../../data/sequences';
import { ensureTenantNumbers, tenantData } from '../../data/tenants';
import { connectMongo, type Mongo } from '../../platform/mongo';
import type { TenantRecord } from '../../platform/records';
import { admin, getStack } from './harness';

// Integer sequences against the stack's real FerretDB, which loses concurrent updates of one document but
// honours a unique `_id`. Each allocator here has its own MongoClient: two of them are two processes.

let one: Mongo;
let two: Mongo;
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

beforeAll(async () => {
  [one, two] = await Promise.all([connectMongo(getStack().mongoUri), connectMongo(getStack().mongoUri)]);
});
afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
});

/** `n` concurrent calls, alternating between the allocators; the numbers each one handed out, in call order. */
async function race(allocators: Array<{ next(name: string): Promise<number> }>, name: string, n: number) {
  const byAllocator = allocators.map(() => [] as number[]);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const which = i % allocators.length;
      byAllocator[which]!.push(await allocators[which]!.next(name));
    }),
  );
  return { byAllocator, all: byAllocator.flat(), ms: Math.round(performance.now() - started) };
}

const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

describe('sequences', () => {
  const hundreds = `it-blocks-of-100-${run}`;
  const ones = `it-blocks-of-1-${run}`;

  test('200 concurrent numbers from two processes (blocks of 100) are distinct, and increase within each', async () => {
    const { byAllocator, all, ms } = await race([createSequences(one), createSequences(two)], hundreds, 200);
    console.log(`200 concurrent allocations, two processes, blocks of 100: ${ms} ms`);
    expect(new Set(all).size).toBe(200);
    expect(all.every((n) => Number.isSafeInteger(n) && n >= 1)).toBe(true);
    for (const numbers of byAllocator) expect(numbers).toEqual(sorted(numbers));
  });

  test('200 concurrent numbers from two processes with blocks of 1 are 1..200, each once', async () => {
    const { all, ms } = await race([createSequences(one, { blockSize: 1 }), createSequences(two, { blockSize: 1 })], ones, 200);
    console.log(`200 concurrent allocations, two processes, blocks of 1: ${ms} ms`);
    expect(sorted(all)).toEqual(oneTo(200));
  });

  test('a process started later never reuses a number', async () => {
    const later = await connectMongo(getStack().mongoUri);
    try {
      expect(await createSequences(later).next(hundreds)).toBeGreaterThan(200);
      expect(await createSequences(later, { blockSize: 1 }).next(ones)).toBe(201);
    } finally {
      await later.close();
    }
  });

  test('a process asking for blocks of another size than the sequence keeps is refused', async () => {
    await expect(createSequences(one, { blockSize: 10 }).next(hundreds)).rejects.toThrow('blocks of 100, not 10');
  });
});

describe('tenant numbers', () => {
  test('the admin API numbers each new tenant and shows the integer as tenant_id beside its id', async () => {
    const a = await admin.post('/admin/tenants', { name: 'Numbered A', region: 'eu' });
    const b = await admin.post('/admin/tenants', { name: 'Numbered B', region: 'eu' });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ tenant: expect.stringMatching(/^ten_eu_/), tenant_id: expect.any(Number) });
    expect(Number.isSafeInteger(a.body.tenant_id) && a.body.tenant_id >= 1).toBe(true);
    expect(b.body.tenant_id).not.toBe(a.body.tenant_id);

    const read = await admin.get(`/admin/tenants/${a.body.tenant}`);
    expect(read.body).toMatchObject({ tenant: a.body.tenant, tenant_id: a.body.tenant_id, name: 'Numbered A' });
    expect((await tenantData(one).findByNumber(a.body.tenant_id))?._id).toBe(a.body.tenant);
  });

  test('tenants from before integer ids get exactly one number each, even when two processes backfill at once', async () => {
    // A .data/ of an older version: tenants with no number.
    const ids = Array.from({ length: 30 }, (_, i) => `ten_eu_old${run}${String(i).padStart(2, '0')}`);
    const old = ids.map((_id, i) => ({ _id, name: `Old shop ${i}`, region: 'eu', created_at: new Date(Date.UTC(2020, 0, 1, 0, 0, i)) }));
    await one.c.tenants.insertMany(old as TenantRecord[]);

    const [byOne, byTwo] = await Promise.all([ensureTenantNumbers(one), ensureTenantNumbers(two)]);

    const stored = await one.c.tenants.find({ _id: { $in: ids } }).toArray();
    expect(stored).toHaveLength(30);
    expect(stored.every((t) => Number.isSafeInteger(t.number) && t.number >= 1)).toBe(true);
    const numbers = stored.map((t) => t.number);
    expect(new Set(numbers).size).toBe(30);
    // No tenant anywhere shares one of these numbers.
    expect(await one.c.tenants.countDocuments({ number: { $in: numbers } })).toBe(30);
    // Where the two racers' re-reads disagree, FerretDB let both conditional writes through and the later won.
    const final = new Map(stored.map((t) => [t._id, t.number]));
    const disagreed = ids.filter((id) => (byOne.has(id) && byOne.get(id) !== final.get(id)) || (byTwo.has(id) && byTwo.get(id) !== final.get(id)));
    console.log(`backfill race: ${byOne.size} and ${byTwo.size} tenants numbered by each process; ${disagreed.length} re-reads later replaced`);

    // Run again (the next start): nothing changes.
    expect((await ensureTenantNumbers(two)).size).toBe(0);
    const again = await one.c.tenants.find({ _id: { $in: ids } }).toArray();
    expect(new Map(again.map((t) => [t._id, t.number]))).toEqual(final);
    expect((await tenantData(two).findByNumber(final.get(ids[0]!)!))?._id).toBe(ids[0]);
  });
});
