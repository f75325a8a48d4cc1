import { serveAsset, staticAsset } from '../../../api/hosted/static-asset';

const asset = staticAsset('body{color:red}', 'text/css; charset=utf-8');
const ctx = (query: Record<string, string> = {}, headers: Record<string, string> = {}) => ({
  query,
  get: (name: string) => headers[name.toLowerCase()] ?? '',
});

describe('static assets', () => {
  test('a URL naming the current content version is cached for good', () => {
    const res = serveAsset(asset, ctx({ v: asset.version }), 'versioned');
    expect(res).toMatchObject({ status: 200, body: 'body{color:red}' });
    expect(res.headers).toMatchObject({ 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=31536000, immutable' });
  });

  test('any other version is revalidated, so an old page never pins a new file', () => {
    expect(serveAsset(asset, ctx({ v: 'stale' }), 'versioned').headers!['Cache-Control']).toBe('no-cache');
  });

  test('a matching ETag gets 304 without a body', () => {
    expect(serveAsset(asset, ctx({}, { 'if-none-match': asset.etag }), 'short')).toMatchObject({ status: 304, body: null });
  });
});
