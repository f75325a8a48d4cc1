import { clientSecretFor, intentPageUrl } from '../../../api/hosted/client-secret';
import { isUnprefixableHost, regionOfHost, regionPublicBaseUrl } from '../../../api/http/region';
import { logoUrl } from '../../../api/payment-methods/catalog';
import { ConfigError, loadConfig, type Config } from '../../../platform/config';

// The base address is region-specific: an intent's `url` and a method's `logo_url` name the host of the
// intent's (the request's) region. PUBLIC_BASE_URLS gives a region its own base; otherwise `api-<region>.`
// goes on PUBLIC_BASE_URL's host, except where a prefixed name would not resolve (localhost, IPs, one label).

const config = (env: Record<string, string>): Config => loadConfig({ NODE_ENV: 'development', REGIONS: 'eu,us', ...env });
const PI_US = 'pi_us_0123456789abcdefABCDEF';
const PI_EU = 'pi_eu_0123456789abcdefABCDEF';

describe('api-<region>. on PUBLIC_BASE_URL', () => {
  const c = config({ PUBLIC_BASE_URL: 'https://pay.example' });
  test.each([
    ['eu', 'https://api-eu.pay.example'],
    ['us', 'https://api-us.pay.example'],
  ])('region %s -> %s', (region, base) => expect(regionPublicBaseUrl(region, c)).toBe(base));

  test('keeps the port and a path, drops a trailing slash', () => {
    const withPath = config({ PUBLIC_BASE_URL: 'https://pay.example:8443/payments/' });
    expect(regionPublicBaseUrl('us', withPath)).toBe('https://api-us.pay.example:8443/payments');
  });

  test("a base that already names a region gets the intent's region instead", () => {
    const regional = config({ PUBLIC_BASE_URL: 'https://api-eu.pay.example' });
    expect(regionPublicBaseUrl('us', regional)).toBe('https://api-us.pay.example');
    expect(regionPublicBaseUrl('eu', regional)).toBe('https://api-eu.pay.example');
  });

  test('every host generated is one region detection serves as that region', () => {
    for (const region of c.REGIONS) expect(regionOfHost(new URL(regionPublicBaseUrl(region, c)).host, c)).toBe(region);
  });
});

describe('PUBLIC_BASE_URLS', () => {
  const c = config({
    PUBLIC_BASE_URL: 'https://pay.example',
    PUBLIC_BASE_URLS: 'us=https://payments-us.example.com/, eu=https://api-eu.eu-pay.example',
    REGION_HOST_ALIASES: 'payments-us.example.com=us',
  });

  test("a region's own base is used as given (without a trailing slash)", () => {
    expect(regionPublicBaseUrl('us', c)).toBe('https://payments-us.example.com');
    expect(regionPublicBaseUrl('eu', c)).toBe('https://api-eu.eu-pay.example');
  });

  test('a region without one falls back to api-<region>. on PUBLIC_BASE_URL', () => {
    const partial = config({ PUBLIC_BASE_URL: 'https://pay.example', PUBLIC_BASE_URLS: 'us=https://api-us.other.example' });
    expect(regionPublicBaseUrl('us', partial)).toBe('https://api-us.other.example');
    expect(regionPublicBaseUrl('eu', partial)).toBe('https://api-eu.pay.example');
  });

  test("the default region may keep PUBLIC_BASE_URL's plain host (served as the default region)", () => {
    const plain = config({ PUBLIC_BASE_URL: 'https://pay.example', PUBLIC_BASE_URLS: 'eu=https://pay.example' });
    expect(regionPublicBaseUrl('eu', plain)).toBe('https://pay.example');
    expect(regionPublicBaseUrl('us', plain)).toBe('https://api-us.pay.example');
  });

  test('every host given is one region detection serves as that region', () => {
    for (const region of c.REGIONS) expect(regionOfHost(new URL(regionPublicBaseUrl(region, c)).host, c)).toBe(region);
  });

  const refusal = (env: Record<string, string>) => {
    try {
      config({ PUBLIC_BASE_URL: 'https://pay.example', ...env });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error(`accepted ${JSON.stringify(env)}`);
  };

  test.each([
    ['not a pair', { PUBLIC_BASE_URLS: 'https://api-us.pay.example' }, /is not region=/],
    ['a bad region name', { PUBLIC_BASE_URLS: 'US=https://api-us.pay.example' }, /is not region=/],
    ['not http(s)', { PUBLIC_BASE_URLS: 'us=ftp://api-us.pay.example' }, /is not region=/],
    ['a query', { PUBLIC_BASE_URLS: 'us=https://api-us.pay.example/?x=1' }, /is not region=/],
    ['a region given twice', { PUBLIC_BASE_URLS: 'us=https://api-us.a.example,us=https://api-us.b.example' }, /given twice/],
    ['a region not served', { PUBLIC_BASE_URLS: 'ap=https://api-ap.pay.example' }, /region 'ap', which REGIONS \(eu,us\) does not serve/],
    ["another region's host", { PUBLIC_BASE_URLS: 'us=https://api-eu.pay.example' }, /host 'api-eu.pay.example' is served as region 'eu'/],
    ['a plain host of a non-default region', { PUBLIC_BASE_URLS: 'us=https://payments-us.example.com' }, /served as region 'eu'.*REGION_HOST_ALIASES/],
    ['localhost for a non-default region', { PUBLIC_BASE_URLS: 'us=http://localhost:3000' }, /served as region 'eu'/],
  ])('refuses %s, naming PUBLIC_BASE_URLS', (_what, env, message) => {
    const text = refusal(env);
    expect(text).toMatch(/^\s+PUBLIC_BASE_URLS: /m);
    expect(text).toMatch(message);
  });

  test('unset or empty is no per-region base', () => {
    expect(config({}).PUBLIC_BASE_URLS).toEqual({});
    expect(config({ PUBLIC_BASE_URLS: '' }).PUBLIC_BASE_URLS).toEqual({});
  });
});

describe('hosts that take no prefix keep the plain base for every region', () => {
  test.each([
    'http://localhost:3000',
    'http://shop.localhost:3000',
    'http://127.0.0.1:4000',
    'http://[::1]:4000',
    'http://api:3000', // a single label: a container name
  ])('%s', (base) => {
    const c = config({ PUBLIC_BASE_URL: base });
    const plain = base.replace(/\/+$/, '');
    expect(regionPublicBaseUrl('eu', c)).toBe(plain);
    expect(regionPublicBaseUrl('us', c)).toBe(plain);
    // served as the default region, where the hosted page and the logos open for any region's intent
    expect(regionOfHost(new URL(plain).host, c)).toBe('eu');
  });

  test('no PUBLIC_BASE_URL: http://localhost:$PORT', () => {
    expect(regionPublicBaseUrl('us', config({ PORT: '4321' }))).toBe('http://localhost:4321');
  });

  test('a region-named localhost base is still switched to the region (browsers resolve *.localhost)', () => {
    expect(regionPublicBaseUrl('us', config({ PUBLIC_BASE_URL: 'http://api-eu.localhost:3000' }))).toBe('http://api-us.localhost:3000');
  });

  test.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['a.localhost', true],
    ['10.0.0.7', true],
    ['[2001:db8::1]', true],
    ['payorch', true],
    ['pay.example', false],
    ['api-eu.pay.example', false],
  ])('isUnprefixableHost(%s) = %s', (host, expected) => expect(isUnprefixableHost(host)).toBe(expected));
});

describe('a region this process does not serve, or none', () => {
  const c = config({ PUBLIC_BASE_URL: 'https://pay.example', PUBLIC_BASE_URLS: 'us=https://api-us.pay.example' });
  test.each([['ap'], [null], [undefined], ['']])('%s -> the plain PUBLIC_BASE_URL', (region) => {
    expect(regionPublicBaseUrl(region, c)).toBe('https://pay.example');
  });
});

describe("intentPageUrl: the region comes from the intent's typed id", () => {
  const c = config({ PUBLIC_BASE_URL: 'https://pay.example', PUBLIC_BASE_URLS: 'us=https://api-us.us-pay.example' });

  test.each([
    [PI_EU, 'https://api-eu.pay.example'],
    [PI_US, 'https://api-us.us-pay.example'],
  ])('%s -> %s/pay/<id>?client_secret=...', (id, base) => {
    expect(intentPageUrl(id, c)).toBe(`${base}/pay/${id}?client_secret=${clientSecretFor(id, c.KEY_HASH_SECRET)}`);
  });

  test('an id of a region not served here, or no typed id, keeps the plain base', () => {
    expect(new URL(intentPageUrl('pi_ap_0123456789abcdefABCDEF', c)).origin).toBe('https://pay.example');
    expect(new URL(intentPageUrl('not-a-typed-id', c)).origin).toBe('https://pay.example');
  });
});

test("logoUrl on the region's base", () => {
  const c = config({ PUBLIC_BASE_URL: 'https://pay.example' });
  expect(logoUrl(regionPublicBaseUrl('us', c), 'card')).toBe('https://api-us.pay.example/assets/payment-methods/card.svg');
  expect(logoUrl(regionPublicBaseUrl('eu', c), 'sepa_debit', 'favicon')).toBe('https://api-eu.pay.example/assets/payment-methods/sepa_debit-favicon.svg');
});
