import { clientSecretFor, hostedPageUrl, isClientSecretFor } from '../../../api/hosted/client-secret';
import { credentialFrom } from '../../../api/hosted/checkout-view';

const PEPPER = 'unit-test-pepper-0123456789';
const PI = 'pi_eu_4rhLyzNiN5WGKqMAq6hz9J';

describe('client secret of the hosted page', () => {
  test('is bound to one intent and verifies for it', () => {
    const secret = clientSecretFor(PI, PEPPER);
    expect(secret).toMatch(/^pics_[0-9a-f]{64}$/);
    expect(isClientSecretFor(PI, secret, PEPPER)).toBe(true);
  });

  test('does not open another intent', () => {
    expect(isClientSecretFor('pi_eu_other000000000000000', clientSecretFor(PI, PEPPER), PEPPER)).toBe(false);
  });

  test('depends on the server pepper', () => {
    expect(isClientSecretFor(PI, clientSecretFor(PI, 'another-pepper-abcdefgh'), PEPPER)).toBe(false);
  });

  test('rejects malformed and truncated values without throwing', () => {
    const secret = clientSecretFor(PI, PEPPER);
    for (const bad of ['', 'pics_', secret.slice(0, -1), `${secret}0`, secret.toUpperCase(), secret.replace('pics_', 'pk_eu_'), `pics_${'z'.repeat(64)}`]) {
      expect(isClientSecretFor(PI, bad, PEPPER)).toBe(false);
    }
  });

  test("is carried in the intent's url", () => {
    expect(hostedPageUrl('https://pay.example.com/', PI, PEPPER)).toBe(`https://pay.example.com/pay/${PI}?client_secret=${clientSecretFor(PI, PEPPER)}`);
  });

  test('the hosted page takes only the client secret, the embedded form only a key', () => {
    const query = { client_secret: 'pics_x', key: 'pk_eu_x' };
    expect(credentialFrom(query, ['client_secret'])).toEqual({ kind: 'client_secret', value: 'pics_x' });
    expect(credentialFrom(query, ['publishable_key'])).toEqual({ kind: 'publishable_key', value: 'pk_eu_x' });
    expect(credentialFrom({ client_secret: ['a', 'b'] }, ['client_secret'])).toBeNull();
    expect(credentialFrom({}, ['client_secret', 'publishable_key'])).toBeNull();
  });
});
