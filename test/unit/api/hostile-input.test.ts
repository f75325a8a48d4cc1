import { metadataSchema } from '../../../api/http/common-schemas';
import { customerUpsertBody } from '../../../api/customers/schemas';
import { createBodyV202607 } from '../../../api/payment-intents/schemas';
import { buildOpenApi } from '../../../api/openapi/routes';
import { allRoutes } from '../../../api/routes';
import { parseOrThrow } from '../../../api/http/validate';
import { DomainError } from '../../../domain/errors';

function refusal(body: unknown): DomainError {
  try {
    parseOrThrow(createBodyV202607, body, 'body');
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('the body was accepted');
}

test.each([
  ['_bsontype', "'_bsontype' is a reserved key"],
  ['$where', "a key may not start with '$'"],
  ['a.b', "a key may not contain '.'"],
  ['nul\u0000key', 'a key may not contain a NUL character'],
])('a metadata key MongoDB cannot store (%j) is a 400 naming it', (key, reason) => {
  const err = refusal({ amount: 100, currency: 'EUR', metadata: { order: '1', [key]: 'x' } });
  expect(err).toMatchObject({ kind: 'invalid_request', code: 'parameter_invalid', param: `metadata[${key}]` });
  expect(err.message).toContain(reason);
});

test('keys that only look unusual, and NUL inside values, are stored as given', () => {
  const metadata = { x$: 'a', _id: 'b', constructor: 'c', 'ünïcödé 🙂': 'd', nul: 'before\u0000after' };
  expect(metadataSchema.parse(metadata)).toEqual(metadata);
});

test('the metadata bounds still hold: 50 keys of 40 characters', () => {
  expect(refusal({ amount: 1, currency: 'EUR', metadata: { ['k'.repeat(41)]: 'x' } }).message).toContain('at most 40 characters');
  const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
  expect(refusal({ amount: 1, currency: 'EUR', metadata: many })).toMatchObject({ param: 'metadata', message: 'Invalid metadata: at most 50 keys' });
});

test('a metadata key is counted in characters, as its value and the published schema count them: 40 emoji fit, 41 do not', () => {
  expect(metadataSchema.safeParse({ ['🙂'.repeat(40)]: 'x', v: '🙂'.repeat(500) }).success).toBe(true);
  expect(refusal({ amount: 1, currency: 'EUR', metadata: { ['🙂'.repeat(41)]: 'x' } }).message).toContain('at most 40 characters');
});

test('a customer email is what a browser email field accepts', () => {
  expect(customerUpsertBody.safeParse({ email: 'pgc$vc@qhpyq.example' }).success).toBe(true);
  expect(customerUpsertBody.safeParse({ email: 'not an email' }).success).toBe(false);
});

describe('the OpenAPI document states what the API checks', () => {
  const doc = buildOpenApi(allRoutes()) as any;
  const createSchema = doc.paths['/v202607/payment-intents'].post.requestBody.content['application/json'].schema;

  test('metadata keys: the refused ones and the bounds', () => {
    expect(createSchema.properties.metadata).toMatchObject({
      type: 'object',
      maxProperties: 50,
      propertyNames: { minLength: 1, maxLength: 40, not: { const: '_bsontype' } },
    });
    const pattern = new RegExp(createSchema.properties.metadata.propertyNames.pattern);
    expect(['order_id', 'x$', '_id'].filter((k) => pattern.test(k))).toEqual(['order_id', 'x$', '_id']);
    expect(['$where', 'a.b', 'nul\u0000key'].filter((k) => pattern.test(k))).toEqual([]);
  });

  test('currencies: the ISO 4217 codes', () => {
    expect(createSchema.properties.currency.enum).toEqual(expect.arrayContaining(['EUR', 'USD', 'JPY']));
    expect(createSchema.properties.currency.enum).not.toContain('AAA');
  });

  test('a v202607 customer is exactly the fields v202607 documents: no address', () => {
    const view = doc.paths['/v202607/customers/{customer}'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(view.properties).sort()).toEqual(['created_at', 'customer', 'email', 'first_name', 'last_name', 'phone_number', 'reference', 'test_clock']);
    expect(view.additionalProperties).toBe(false);
  });
});

test('a wrong type inside an inline customer (an id or an object) names the field inside, not only `customer`', () => {
  expect(refusal({ amount: 100, currency: 'EUR', customer: { first_name: 5 } })).toMatchObject({
    code: 'parameter_invalid',
    param: 'customer[first_name]',
    message: 'Invalid customer[first_name]: Invalid input: expected string, received number',
  });
  // A value of neither branch's type is still about `customer` itself.
  expect(refusal({ amount: 100, currency: 'EUR', customer: 5 })).toMatchObject({ code: 'parameter_invalid', param: 'customer' });
});
