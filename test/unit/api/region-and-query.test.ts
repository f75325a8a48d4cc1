import { regionOfHost } from '../../../api/region';
import { parseQuery } from '../../../api/query';

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

test('bracket query keys become nested objects', () => {
  expect(parseQuery(new URLSearchParams('limit=3&created[gte]=1700000000&created[lt]=2024-01-01T00:00:00Z&status=pending'))).toEqual({
    limit: '3',
    created: { gte: '1700000000', lt: '2024-01-01T00:00:00Z' },
    status: 'pending',
  });
});
