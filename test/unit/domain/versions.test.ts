import { resolveVersion } from '../../../domain/versions';

describe('version resolution: the nearest version not after the requested one that defines the endpoint', () => {
  const customers = ['v202607'] as const;
  const createIntent = ['v202502', 'v202606', 'v202607', 'v202608'] as const;
  test.each([
    ['v202607', customers, 'v202607'],
    ['v202608', customers, 'v202607'],
    ['v202609', customers, 'v202607'],
    ['v203001', customers, 'v202607'],
    ['v202606', customers, null],
    ['v202502', customers, null],
    ['v202608', createIntent, 'v202608'],
    ['v202612', createIntent, 'v202608'],
    ['v202607', createIntent, 'v202607'],
    ['v202606', createIntent, 'v202606'],
    ['v202601', createIntent, 'v202502'],
    ['v202401', createIntent, null],
  ] as const)('%s of %j is served by %s', (requested, defined, served) => {
    expect(resolveVersion(requested, defined)).toBe(served);
  });
  test.each(['v2026', 'v202613', 'v202600', '202607', 'vabcdef'])('%s is not a version', (v) => {
    expect(resolveVersion(v, createIntent)).toBeNull();
  });
});
