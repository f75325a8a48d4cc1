import {
  generateSigningSecret,
  ROTATION_OVERLAP_MS,
  SigningSecretRotationConflict,
  SigningSecretRotationLimit,
  signingSecretsAt,
  webhookSigningSecretData,
} from '../../../data/webhook-signing-secrets';
import type { WebhookSigningSecretRecord } from '../../../platform/records';
import { FakeCollection, fakeMongo } from './fake-mongo';

// A tenant's signing secrets: their shape, creation on first use (one winner between concurrent creators),
// and rotation with its 24-hour overlap.

const TENANT = 'ten_eu_signing';
const T0 = new Date('2026-11-01T00:00:00.000Z');
const hours = (h: number) => new Date(T0.getTime() + h * 3600_000);

function setup() {
  const collection = new FakeCollection();
  const data = webhookSigningSecretData(fakeMongo({ webhookSigningSecrets: collection }));
  return { collection, data };
}

test('a secret is whsec_ and the base64 of 32 random bytes', () => {
  const a = generateSigningSecret();
  expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
  expect(generateSigningSecret()).not.toBe(a);
});

test('ensure creates the secret once and then reads it', async () => {
  const { data, collection } = setup();
  const first = await data.ensure(TENANT, T0);
  expect(first).toMatchObject({ _id: TENANT, tenant_id: TENANT, created_at: T0, previous: [], version: 1 });
  expect(await data.ensure(TENANT, hours(1))).toEqual(first);
  expect(collection.docs.size).toBe(1);
});

test('of two concurrent creators, the loser answers the winner’s secret', async () => {
  const { data, collection } = setup();
  // Both read "none" before either writes.
  const findOne = collection.findOne.bind(collection);
  let reads = 0;
  collection.findOne = async (q) => (reads++ < 2 ? null : findOne(q));
  const [a, b] = await Promise.all([data.ensure(TENANT, T0), data.ensure(TENANT, T0)]);
  expect(a.secret).toBe(b.secret);
  expect(collection.docs.size).toBe(1);
});

test('a rotation signs with both for 24 h; two rotations within 24 h keep each previous until its own expiry', async () => {
  const { data } = setup();
  const s0 = await data.ensure(TENANT, T0);
  const r1 = await data.rotate(TENANT, hours(1));
  expect(r1).toMatchObject({ version: 2, created_at: hours(1), previous: [{ secret: s0.secret, expires_at: hours(25) }] });
  expect(signingSecretsAt(r1, hours(1))).toEqual([r1.secret, s0.secret]);
  expect(signingSecretsAt(r1, new Date(hours(25).getTime() - 1))).toEqual([r1.secret, s0.secret]);
  expect(signingSecretsAt(r1, hours(25))).toEqual([r1.secret]);

  const r2 = await data.rotate(TENANT, hours(2));
  expect(r2.previous).toEqual([
    { secret: r1.secret, expires_at: hours(26) },
    { secret: s0.secret, expires_at: hours(25) },
  ]);
  expect(signingSecretsAt(r2, hours(24))).toEqual([r2.secret, r1.secret, s0.secret]);
  expect(signingSecretsAt(r2, hours(25.5))).toEqual([r2.secret, r1.secret]);

  // a rotation drops what has expired
  const r3 = await data.rotate(TENANT, hours(30));
  expect(r3.previous).toEqual([{ secret: r2.secret, expires_at: hours(54) }]);
  expect(ROTATION_OVERLAP_MS).toBe(24 * 3600_000);
});

test('at most three earlier secrets sign beside the current one: a fourth rotation within 24 h is refused', async () => {
  const { data } = setup();
  await data.ensure(TENANT, T0);
  for (const h of [1, 2, 3]) await data.rotate(TENANT, hours(h));
  const third = await data.ensure(TENANT, hours(4));
  expect(third.previous).toHaveLength(3);
  // Refused with its own error saying the cap and when the oldest previous secret expires, not as a concurrent rotation.
  const refused = await data.rotate(TENANT, hours(4)).catch((err: unknown) => err);
  expect(refused).toBeInstanceOf(SigningSecretRotationLimit);
  expect(refused).toMatchObject({ retryAt: hours(25) });
  expect((refused as Error).message).toBe(
    `The webhook signing secret of ${TENANT} has been rotated 3 times within 24 hours: at most 3 previous secrets sign beside the current one. ` +
      'The oldest of them expires at 2026-11-02T01:00:00.000Z; rotate again from then',
  );
  expect(await data.ensure(TENANT, hours(4))).toEqual(third);
  // still refused just before that instant
  await expect(data.rotate(TENANT, new Date(hours(25).getTime() - 1))).rejects.toBeInstanceOf(SigningSecretRotationLimit);
  // once the oldest has expired, a rotation goes through again
  expect((await data.rotate(TENANT, hours(25))).previous).toHaveLength(3);
});

test('a rotation of a tenant without a secret yet creates one and rotates it', async () => {
  const { data } = setup();
  const r = await data.rotate(TENANT, T0);
  expect(r.version).toBe(2);
  expect(r.previous).toHaveLength(1);
});

test('two rotations at once: one rotates, the other is refused (409), and the secret moved once', async () => {
  const { data } = setup();
  const s0 = await data.ensure(TENANT, T0);
  // Both read version 1 before either writes: a client's rotate, and its retry after a timeout.
  const [a, b] = await Promise.allSettled([data.rotate(TENANT, hours(1)), data.rotate(TENANT, hours(1))]);
  const won = [a, b].flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const lost = [a, b].flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  expect(won).toHaveLength(1);
  expect(lost).toEqual([expect.any(SigningSecretRotationConflict)]);
  const stored = await data.ensure(TENANT, hours(1));
  expect(stored).toEqual(won[0]);
  expect(stored).toMatchObject({ version: 2, previous: [{ secret: s0.secret, expires_at: hours(25) }] });
});

test('a rotation whose version moved under it is refused, and says so if the store kept the other', async () => {
  const { data, collection } = setup();
  await data.ensure(TENANT, T0);
  // Another rotation landed between our read and our write: ours matches nothing and is refused, not tried again.
  const updateOne = collection.updateOne.bind(collection);
  let other: string | null = null;
  collection.updateOne = async (q, u) => {
    if (other === null) {
      const doc = collection.docs.get(TENANT)! as unknown as WebhookSigningSecretRecord;
      doc.version += 1;
      doc.secret = other = generateSigningSecret();
    }
    return updateOne(q, u);
  };
  await expect(data.rotate(TENANT, hours(1))).rejects.toBeInstanceOf(SigningSecretRotationConflict);
  expect(await data.ensure(TENANT, hours(1))).toMatchObject({ version: 2, secret: other });

  // The write "applied" but another one landed over it (no atomic conditional update on FerretDB).
  collection.updateOne = async (q, u) => {
    const res = await updateOne(q, u);
    (collection.docs.get(TENANT) as unknown as WebhookSigningSecretRecord).secret = generateSigningSecret();
    return res;
  };
  await expect(data.rotate(TENANT, hours(2))).rejects.toBeInstanceOf(SigningSecretRotationConflict);
});

test('a rotate retried with the key of the last rotation answers that rotation, after it landed or while it is landing', async () => {
  const { data } = setup();
  await data.ensure(TENANT, T0);
  const first = await data.rotate(TENANT, hours(1), 'rot-1');
  // The retry reads after the first try's write: without the key it would rotate again.
  const retried = await data.rotate(TENANT, hours(1), 'rot-1');
  expect(retried).toEqual(first);
  expect((await data.ensure(TENANT, hours(1))).version).toBe(2);
  // Even when a new rotation would be past the cap, the retry answers the rotation it repeats.
  await data.rotate(TENANT, hours(2), 'rot-2');
  const third = await data.rotate(TENANT, hours(3), 'rot-3');
  expect(await data.rotate(TENANT, hours(4), 'rot-3')).toEqual(third);
  await expect(data.rotate(TENANT, hours(4), 'rot-4')).rejects.toBeInstanceOf(SigningSecretRotationLimit);
  // A key of an earlier rotation is not the last one's: that is a new rotation (here refused by the cap).
  await expect(data.rotate(TENANT, hours(4), 'rot-1')).rejects.toBeInstanceOf(SigningSecretRotationLimit);
});

test('a rotate and its retry at once with one key: both answer the one rotation; a new key rotates again', async () => {
  const { data } = setup();
  const s0 = await data.ensure(TENANT, T0);
  const [a, b] = await Promise.all([data.rotate(TENANT, hours(1), 'rot-x'), data.rotate(TENANT, hours(1), 'rot-x')]);
  expect(a.secret).toBe(b.secret);
  expect(await data.ensure(TENANT, hours(1))).toMatchObject({ version: 2, secret: a.secret, previous: [{ secret: s0.secret }] });
  const next = await data.rotate(TENANT, hours(2), 'rot-y');
  expect(next).toMatchObject({ version: 3, previous: [{ secret: a.secret }, { secret: s0.secret }] });
  // Without a key a sequential retry is a second rotation: only the key makes a retry safe.
  expect((await data.rotate(TENANT, hours(3))).version).toBe(4);
});
