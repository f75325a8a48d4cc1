import { buildOpenApi } from '../../../api/openapi/document';
import { allRoutes } from '../../../api/routes';

// The Idempotency-Key header is declared where the API reads it: creates whose body takes a key (it is that
// key) and creates that keep their answer under it; nowhere else.

type Param = { in: string; name: string; description?: string };
const doc = buildOpenApi(allRoutes()) as unknown as { paths: Record<string, Record<string, { parameters?: Param[] }>> };
const header = (path: string, method = 'post') => doc.paths[path]?.[method]?.parameters?.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');

test.each([
  ['/v202608/payment-intents', 'idempotency_key'],
  ['/v202607/refunds', 'idempotency_key'],
  ['/v202607/plans', 'idempotency_key'],
  ['/v202607/checkout-sessions', 'idempotency_key'],
  ['/commerce/cart', 'idempotencyKey'],
])('%s declares the header as its body key %s', (path, field) => {
  expect(header(path)?.description).toContain(`\`${field}\``);
});

test.each(['/v202607/customers', '/v202608/customers', '/commerce/addresses', '/v202607/promotion-codes', '/v202607/test-clocks'])('%s declares the header that keeps its first answer', (path) => {
  expect(header(path)?.description).toContain('Idempotent-Replayed');
});

test('state changes, which ignore it, do not declare it', () => {
  expect(header('/v202607/payment-intents/{payment_intent}/cancel')).toBeUndefined();
  expect(header('/v202607/invoices/{invoice}/void')).toBeUndefined();
});
