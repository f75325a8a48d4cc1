import { checkoutCreateBody } from '../../../api/checkouts/schemas';
import { parseOrThrow } from '../../../api/http/validate';
import { returnCreateBody } from '../../../api/returns/schemas';
import { DomainError } from '../../../domain/errors';

// A checkout's shippingAddress and a return's address: absent, `parameter_missing` naming it, as any missing
// field; of a wrong shape, `parameter_invalid` whose message says what is expected (a saved address's {id} or an
// Address object) and, for an object, what is wrong with it. It was `parameter_invalid` "Invalid input" for all.

function refusal(schema: Parameters<typeof parseOrThrow>[0], body: unknown): { code: string; param: string | undefined; message: string } {
  try {
    parseOrThrow(schema, body, 'body');
  } catch (err) {
    if (err instanceof DomainError) return { code: err.code, param: err.param, message: err.message };
    throw err;
  }
  throw new Error('accepted');
}

const CART = 'cart_eu_0123456789ab';
const ADDRESS = { phone: '+971500000000', address: '1 Palm Street', region: 'Dubai', city: 'Dubai' };
const RETURN = { orderId: 'ord_eu_0123456789ab', idempotencyKey: 'k1', productId: 'prod_eu_0123456789ab', quantity: 1, reasonCode: 'damaged' };
const EXPECTED = /expected \{id\} of a saved address \(addr_\.\.\.\) or an Address object \(phone, address, region, city/;

test('no shippingAddress, or no address on a return: parameter_missing naming it', () => {
  expect(refusal(checkoutCreateBody, { cartId: CART })).toEqual({ code: 'parameter_missing', param: 'shippingAddress', message: 'Missing required parameter: shippingAddress' });
  expect(refusal(returnCreateBody, RETURN)).toEqual({ code: 'parameter_missing', param: 'address', message: 'Missing required parameter: address' });
});

test.each([
  ['a string', 'addr_eu_0123456789ab', /^Invalid shippingAddress: expected \{id\}.*city; additionalPhone and additionalInfo optional\)$/],
  ['null', null, EXPECTED],
  ['an empty object', {}, EXPECTED],
  ['an Address without its city', { phone: '+971500000000', address: '1 Palm Street', region: 'Dubai' }, /; city: Invalid input: expected string, received undefined$/],
])('shippingAddress as %s: parameter_invalid saying what shape is expected', (_what, shippingAddress, message) => {
  const r = refusal(checkoutCreateBody, { cartId: CART, shippingAddress });
  expect(r).toMatchObject({ code: 'parameter_invalid', param: 'shippingAddress' });
  expect(r.message).toMatch(EXPECTED);
  expect(r.message).toMatch(message);
});

test('a shape zod can tell (an id alone, an Address with a field of none) names the field, as elsewhere', () => {
  expect(refusal(checkoutCreateBody, { cartId: CART, shippingAddress: { id: 'nope' } })).toMatchObject({ code: 'parameter_invalid', param: 'shippingAddress[id]' });
  expect(refusal(checkoutCreateBody, { cartId: CART, shippingAddress: { ...ADDRESS, zip: '1' } })).toMatchObject({ code: 'parameter_unknown', param: 'shippingAddress[zip]' });
});

test('a wrong return address is parameter_invalid with the same explanation; good shapes still pass', () => {
  const r = refusal(returnCreateBody, { ...RETURN, address: 'home' });
  expect(r).toMatchObject({ code: 'parameter_invalid', param: 'address' });
  expect(r.message).toMatch(EXPECTED);
  expect(checkoutCreateBody.parse({ cartId: CART, shippingAddress: ADDRESS }).shippingAddress).toEqual(ADDRESS);
  expect(checkoutCreateBody.parse({ cartId: CART, shippingAddress: { id: 'addr_eu_0123456789ab' } }).shippingAddress).toEqual({ id: 'addr_eu_0123456789ab' });
  expect(returnCreateBody.parse({ ...RETURN, address: { id: 'addr_eu_0123456789ab', ...ADDRESS } }).address).toMatchObject({ id: 'addr_eu_0123456789ab' });
});
