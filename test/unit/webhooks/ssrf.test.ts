import type { LookupAddress } from 'node:dns';
import { checkAddress, checkWebhookUrl, guardedLookup, SsrfRefusedError } from '../../../platform/ssrf';

const strict = { allowPrivateHosts: false };
const dev = { allowPrivateHosts: true };

describe('target addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
  ])('refuses %s (%s)', (ip) => {
    expect(checkAddress(ip, strict).ok).toBe(false);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:192.168.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:100.64.0.1', 'carrier-grade NAT'],
    ['::ffff:0.0.0.0', 'unspecified'],
  ])('refuses IPv4-mapped IPv6 %s (%s)', (ip, family) => {
    const c = checkAddress(ip, strict);
    expect(c).toEqual({ ok: false, reason: expect.stringContaining('IPv4-mapped') });
    if (!c.ok) expect(c.reason).toMatch(new RegExp(family.split(' ')[0]!, 'i'));
  });

  it.each([
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['64:ff9b::7f00:1', 'NAT64 to loopback'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['100::1', 'discard-only'],
  ])('refuses %s (%s): tunnels to IPv4 addresses it does not check', (ip) => {
    expect(checkAddress(ip, strict).ok).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'accepts public %s',
    (ip) => {
      expect(checkAddress(ip, strict)).toEqual({ ok: true });
    },
  );

  it('allows loopback and private ranges with allowPrivateHosts, and still refuses link-local, unspecified and multicast', () => {
    for (const ip of ['127.0.0.1', '::1', '10.0.0.1', '192.168.1.1', 'fd00::1', '100.64.0.1', '::ffff:127.0.0.1']) expect(checkAddress(ip, dev)).toEqual({ ok: true });
    for (const ip of ['169.254.169.254', 'fe80::1', '0.0.0.0', '::', '224.0.0.1', '255.255.255.255']) expect(checkAddress(ip, dev).ok).toBe(false);
  });
});

describe('checkWebhookUrl (input time, no DNS)', () => {
  it.each(['https://hooks.example.com/payorch', 'http://hooks.example.com:8080/x?y=1', 'https://8.8.8.8/hook', 'https://[2606:4700:4700::1111]/hook'])(
    'accepts %s',
    (url) => expect(checkWebhookUrl(url, strict)).toEqual({ ok: true }),
  );

  it.each([
    ['http://127.0.0.1/hook', /loopback/],
    ['http://[::1]:8080/hook', /loopback/],
    ['http://[::ffff:127.0.0.1]/hook', /IPv4-mapped/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://10.0.0.5/hook', /private/],
    ['http://2130706433/hook', /127\.0\.0\.1 is a loopback/],
    ['http://0x7f.0.0.1/hook', /127\.0\.0\.1 is a loopback/],
    ['http://0177.0.0.1/hook', /127\.0\.0\.1 is a loopback/],
    ['http://0/hook', /unspecified/],
    ['http://localhost:3000/hook', /loopback host name/],
    ['http://api.localhost/hook', /loopback host name/],
    ['ftp://hooks.example.com/x', /scheme ftp/],
    ['file:///etc/passwd', /scheme file/],
    ['javascript:alert(1)', /scheme javascript/],
    ['https://user:pass@hooks.example.com/', /credentials/],
    ['not a url', /valid absolute URL/],
    ['/relative/path', /valid absolute URL/],
    [`https://hooks.example.com/${'a'.repeat(2100)}`, /longer than/],
  ])('refuses %s', (url, reason) => {
    const c = checkWebhookUrl(url, strict);
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.reason).toMatch(reason);
  });

  it('lets local development use loopback and private targets', () => {
    expect(checkWebhookUrl('http://127.0.0.1:4000/hook', dev)).toEqual({ ok: true });
    expect(checkWebhookUrl('http://localhost:4000/hook', dev)).toEqual({ ok: true });
    expect(checkWebhookUrl('http://169.254.169.254/', dev).ok).toBe(false);
  });
});

describe('guardedLookup (connect time)', () => {
  const resolver = (answers: LookupAddress[]) =>
    ((_host: string, _opts: unknown, cb: (err: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) => cb(null, answers)) as never;

  const run = (answers: LookupAddress[], all: boolean) =>
    new Promise<{ err: Error | null; address: unknown; family?: number }>((resolve) =>
      guardedLookup(strict, resolver(answers))('hooks.example.com', { all }, (err, address, family) => resolve({ err, address, family })),
    );

  it('passes public answers through, in both the single and the `all` form', async () => {
    const answers = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ];
    expect(await run(answers, true)).toEqual({ err: null, address: answers, family: undefined });
    expect(await run(answers, false)).toEqual({ err: null, address: '93.184.216.34', family: 4 });
  });

  it('refuses a name whose answers include a forbidden address (DNS rebinding, mixed records)', async () => {
    const r = await run(
      [
        { address: '93.184.216.34', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ],
      true,
    );
    expect(r.err).toBeInstanceOf(SsrfRefusedError);
    // The kind of address, never the address itself: the reason reaches the merchant through the events API.
    expect((r.err as SsrfRefusedError).reason).toBe('hooks.example.com resolves to a link-local address');
  });

  it('refuses a name resolving to an IPv4-mapped loopback', async () => {
    const r = await run([{ address: '::ffff:127.0.0.1', family: 6 }], false);
    expect(r.err).toBeInstanceOf(SsrfRefusedError);
  });

  it('reports DNS failures as such', async () => {
    const failing = ((_h: string, _o: unknown, cb: (err: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) =>
      cb(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), [])) as never;
    const err = await new Promise<Error | null>((resolve) => guardedLookup(strict, failing)('nope.invalid', { all: true }, (e) => resolve(e)));
    expect((err as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
  });
});
