import { couponReleaseData } from '../../data/coupons';
import { connectMongo, type Mongo } from '../../platform/mongo';
import { getStack } from './harness';

// A coupon owner's give-back marks on the stack's FerretDB: each carries the owner's write version, so an
// attempt of an older write that lands late (a timed-out activity still running) never undoes a newer one.

let db: Mongo;
beforeAll(async () => {
  db = await connectMongo(getStack().mongoUri);
});
afterAll(async () => {
  await db?.close();
});

const TENANT = 'ten_eu_releases';
let n = 0;
const ids = () => ({ coupon: `coupon_eu_rel${Date.now()}${++n}`, sub: `sub_eu_rel${n}` });

test("a give-back's late attempt after the subscription was counted again leaves it counted", async () => {
  const releases = couponReleaseData(db);
  const { coupon, sub } = ids();
  await releases.set(TENANT, coupon, sub, true, 2);
  await releases.set(TENANT, coupon, sub, false, 3);
  await releases.set(TENANT, coupon, sub, true, 2); // the write of version 2, one attempt of it landing late
  expect(await releases.has(TENANT, coupon, sub)).toBe(false);
});

test("a counted-again's late attempt after a newer give-back leaves it given back", async () => {
  const releases = couponReleaseData(db);
  const { coupon, sub } = ids();
  await releases.set(TENANT, coupon, sub, true, 4);
  await releases.set(TENANT, coupon, sub, false, 3);
  expect(await releases.has(TENANT, coupon, sub)).toBe(true);
});

test('a mark written before marks carried versions is undone by a counted-again; counting a subscription never given back records nothing', async () => {
  const releases = couponReleaseData(db);
  const { coupon, sub } = ids();
  await db.c.couponReleases.insertOne({ _id: `${coupon}:${sub}`, tenant_id: TENANT, released_at: new Date() });
  expect(await releases.has(TENANT, coupon, sub)).toBe(true);
  await releases.set(TENANT, coupon, sub, false, 1);
  expect(await releases.has(TENANT, coupon, sub)).toBe(false);
  const fresh = ids();
  await releases.set(TENANT, fresh.coupon, fresh.sub, false, 7);
  expect(await db.c.couponReleases.countDocuments({ _id: `${fresh.coupon}:${fresh.sub}` })).toBe(0);
});
