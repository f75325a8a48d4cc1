import { newId, parseId, isIdOf } from '../../../platform/ids';
import { generateKey, hashesEqual, hashKey, parseKey } from '../../../platform/keys';

test('typed ids are <prefix>_<region>_<opaque> with 128 random bits', () => {
  const ids = new Set(Array.from({ length: 1000 }, () => newId('pi', 'eu')));
  expect(ids.size).toBe(1000);
  for (const id of ids) {
    expect(id).toMatch(/^pi_eu_[0-9A-Za-z]{22}$/);
    expect(parseId(id)).toEqual({ prefix: 'pi', region: 'eu', opaque: id.slice(6) });
  }
  expect(isIdOf('pi', newId('re', 'eu'))).toBe(false);
  expect(parseId('pi_EU_x')).toBeNull();
});

test('keys carry a lookup id and 256 secret bits; only an HMAC is kept', () => {
  const { key, lookupId, hash } = generateKey('secret', 'eu', 'pepper-pepper-pepper');
  expect(key).toMatch(/^sk_eu_[0-9A-Za-z]{60}$/);
  expect(parseKey(key)).toEqual({ kind: 'secret', region: 'eu', lookupId });
  expect(hash).toBe(hashKey(key, 'pepper-pepper-pepper'));
  expect(hash).not.toContain(key.slice(6 + 17));
  expect(hashKey(key, 'another-pepper-value')).not.toBe(hash);
  expect(hashesEqual(hash, hashKey(key, 'pepper-pepper-pepper'))).toBe(true);
  expect(hashesEqual(hash, hashKey(key + 'x', 'pepper-pepper-pepper'))).toBe(false);
  expect(parseKey(generateKey('publishable', 'us', 'p'.repeat(20)).key)?.kind).toBe('publishable');
  expect(parseKey('sk_eu_short')).toBeNull();
});
