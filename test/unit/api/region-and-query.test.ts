import { regionOfHost } from '../../../api/http/region';
import { parseQuery } from '../../../api/http/query';

const config = { REGIONS: ['eu', 'us'], DEFAULT_REGION: 'eu', REGION_HOST_ALIASES: { 'payments-europe.example.com': 'eu', 'legacy-us.example.com': 'us' } };

test.each([
  ['api-eu.example.com', 'eu'],
  ['api-us.example.com:443', 'us'],
  ['API-US.Example.com', 'us'],
  ['localhost:3000', 'eu'],
  ['127.0.0.1:3000', 'eu'],
  ['payments-europe.example.com', 'eu'],
  ['legacy-us.example.com', 'us'],
  ['api-mars.example.com', null],
])('host %s serves region %s', (host, region) => expect(regionOfHost(host, config)).toBe(region));

test('prototype keys in a query never reach Object.prototype', () => {
  const parsed = parseQuery(new URLSearchParams('__proto__[_bsontype]=x&constructor[prototype][polluted]=1&a[__proto__]=y&prototype=z'));
  expect(({} as Record<string, unknown>)._bsontype).toBeUndefined();
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.keys(parsed)).toEqual(['constructor[prototype][polluted]']); // deeper brackets stay a flat, harmless key
});

test('bracket query keys become nested objects', () => {
  expect({ ...parseQuery(new URLSearchParams('limit=3&created[gte]=1700000000&created[lt]=2024-01-01T00:00:00Z&status=pending')) }).toEqual({
    limit: '3',
    created: { gte: '1700000000', lt: '2024-01-01T00:00:00Z' },
    status: 'pending',
  });
});
