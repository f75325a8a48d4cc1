import {
  ConfigError,
  DEV_DEFAULTS,
  GATEWAY_CALLBACK_SECRETS,
  loadConfig,
  REQUIRED_IN_PRODUCTION,
  webhookTargetPolicy,
} from '../../../platform/config';
import { DEV_CALLBACK_SECRET } from '../../../sandbox/config';

// loadConfig refuses a wrong value with a message naming the variable. Dev defaults apply only when
// NODE_ENV says development (or test); with no NODE_ENV the process is in production.

const PROD = {
  NODE_ENV: 'production',
  ADMIN_API_TOKEN: 'a'.repeat(32),
  KEY_HASH_SECRET: 'k'.repeat(32),
  PUBLIC_BASE_URL: 'https://pay.example.com',
  SANDBOX_CALLBACK_SECRET: 's'.repeat(32),
};
const REQUIRED = ['ADMIN_API_TOKEN', 'KEY_HASH_SECRET', 'PUBLIC_BASE_URL', 'SANDBOX_CALLBACK_SECRET'];
const DEV = { NODE_ENV: 'development' };

function refusal(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('refuses bad values, naming the variable', () => {
  test.each([
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['MONGODB_URI', { MONGODB_URI: 'http://x' }],
    ['REGIONS', { REGIONS: 'EU!' }],
    ['REGIONS', { REGIONS: 'eu,US' }],
    ['WEBHOOK_RETRY_SCHEDULE', { WEBHOOK_RETRY_SCHEDULE: '5 parsecs' }],
    ['WEBHOOK_RETRY_SCHEDULE', { WEBHOOK_RETRY_SCHEDULE: '1s,2x' }],
    ['WEBHOOK_ALLOW_PRIVATE_HOSTS', { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'maybe' }],
    ['RATE_LIMIT_SECRET_PER_SEC', { RATE_LIMIT_SECRET_PER_SEC: '-1' }],
    ['RATE_LIMIT_PUBLISHABLE_PER_SEC', { RATE_LIMIT_PUBLISHABLE_PER_SEC: 'fast' }],
    ['RATE_LIMIT_ATTEMPTS_BURST', { RATE_LIMIT_ATTEMPTS_BURST: '0' }],
    ['RATE_LIMIT_CLIENT_SECRET_BURST', { RATE_LIMIT_CLIENT_SECRET_BURST: '2.5' }],
    ['SANDBOX_CALLBACK_SECRET', { SANDBOX_CALLBACK_SECRET: 'short' }],
  ])('%s in %j', (name, env) => {
    const err = refusal({ ...DEV, ...env });
    // a list variable is named with the index of the bad item (REGIONS.0)
    expect(err.message).toMatch(new RegExp(`^\\s+${name}(\\.\\d+)?: `, 'm'));
  });

  test('NODE_ENV=staging', () => {
    expect(refusal({ ...PROD, NODE_ENV: 'staging' }).message).toMatch(/^\s+NODE_ENV: /m);
  });

  test.each(REQUIRED)('production without %s', (name) => {
    const env: Record<string, string> = { ...PROD };
    delete env[name];
    const err = refusal(env);
    expect(err.message).toMatch(new RegExp(`^\\s+${name}: is required in production`, 'm'));
    // only the missing one is named
    for (const other of REQUIRED.filter((n) => n !== name)) expect(err.message).not.toContain(other);
  });

  test.each(Object.keys(DEV_DEFAULTS))('production with the development default of %s', (name) => {
    const err = refusal({ ...PROD, [name]: DEV_DEFAULTS[name as keyof typeof DEV_DEFAULTS] });
    expect(err.message).toMatch(new RegExp(`^\\s+${name}: must not be the development default in production`, 'm'));
    expect(err.message).not.toContain(DEV_DEFAULTS[name as keyof typeof DEV_DEFAULTS]); // the value is not echoed
  });

  test('no NODE_ENV is production: an empty environment names every missing variable', () => {
    const err = refusal({});
    for (const name of REQUIRED) expect(err.message).toMatch(new RegExp(`^\\s+${name}: is required in production`, 'm'));
  });

  test('every gateway callback secret is required in production, the sandbox one being the dev sandbox\'s', () => {
    expect(GATEWAY_CALLBACK_SECRETS).toContain('SANDBOX_CALLBACK_SECRET');
    for (const name of GATEWAY_CALLBACK_SECRETS) expect(REQUIRED_IN_PRODUCTION).toContain(name);
    expect([...REQUIRED_IN_PRODUCTION].sort()).toEqual([...REQUIRED].sort());
    expect(DEV_DEFAULTS.SANDBOX_CALLBACK_SECRET).toBe(DEV_CALLBACK_SECRET);
  });

  test('production with WEBHOOK_ALLOW_PRIVATE_HOSTS=true', () => {
    const err = refusal({ ...PROD, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
    expect(err.message).toMatch(/^\s+WEBHOOK_ALLOW_PRIVATE_HOSTS: must be false in production/m);
  });

  test('a bad value never echoes secrets of other variables', () => {
    const err = refusal({ ...PROD, PORT: 'abc' });
    expect(err.message).not.toContain(PROD.ADMIN_API_TOKEN);
    expect(err.message).not.toContain(PROD.KEY_HASH_SECRET);
    expect(err.message).not.toContain(PROD.SANDBOX_CALLBACK_SECRET);
  });
});

describe('accepts', () => {
  test.each(['development', 'test'])('NODE_ENV=%s alone, with the documented defaults', (nodeEnv) => {
    const c = loadConfig({ NODE_ENV: nodeEnv });
    expect(c).toMatchObject({
      NODE_ENV: nodeEnv,
      HOST: '0.0.0.0',
      PORT: 3000,
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'payments',
      TEMPORAL_WEBHOOK_TASK_QUEUE: 'webhooks',
      MONGODB_URI: 'mongodb://127.0.0.1:27017/payorch',
      REGIONS: ['eu'],
      DEFAULT_REGION: 'eu',
      REGION_HOST_ALIASES: {},
      SANDBOX_URL: 'http://127.0.0.1:4010',
      WEBHOOK_ALLOW_PRIVATE_HOSTS: false,
      WEBHOOK_TIMEOUT_MS: 10_000,
      LOG_LEVEL: 'info',
      WORKER_METRICS_PORT: 9464,
      KEY_HASH_SECRET: DEV_DEFAULTS.KEY_HASH_SECRET,
      SANDBOX_CALLBACK_SECRET: DEV_DEFAULTS.SANDBOX_CALLBACK_SECRET,
      RATE_LIMIT_SECRET_PER_SEC: 100,
      RATE_LIMIT_SECRET_BURST: 200,
      RATE_LIMIT_PUBLISHABLE_PER_SEC: 20,
      RATE_LIMIT_PUBLISHABLE_BURST: 40,
      RATE_LIMIT_ATTEMPTS_PER_SEC: 5,
      RATE_LIMIT_ATTEMPTS_BURST: 20,
      RATE_LIMIT_CLIENT_SECRET_PER_SEC: 1,
      RATE_LIMIT_CLIENT_SECRET_BURST: 10,
    });
    expect(c.WEBHOOK_RETRY_SCHEDULE).toBeUndefined();
    expect(c.ADMIN_API_TOKEN).toBeUndefined();
    expect(c.PUBLIC_BASE_URL).toBeUndefined();
  });

  test('empty strings count as unset', () => {
    expect(loadConfig({ ...DEV, PORT: '', REGIONS: '' })).toMatchObject({ PORT: 3000, REGIONS: ['eu'] });
    expect(refusal({ ...PROD, KEY_HASH_SECRET: '' }).message).toMatch(/^\s+KEY_HASH_SECRET: is required in production/m);
  });

  test('fractional rates (a tiny bucket for tests), and 0 to turn a limit off', () => {
    expect(loadConfig({ ...DEV, RATE_LIMIT_SECRET_PER_SEC: '0.001', RATE_LIMIT_SECRET_BURST: '3', RATE_LIMIT_CLIENT_SECRET_PER_SEC: '0' })).toMatchObject({
      RATE_LIMIT_SECRET_PER_SEC: 0.001,
      RATE_LIMIT_SECRET_BURST: 3,
      RATE_LIMIT_CLIENT_SECRET_PER_SEC: 0,
    });
  });

  test("WEBHOOK_RETRY_SCHEDULE '1s,2s,4s' is [1000, 2000, 4000]", () => {
    expect(loadConfig({ ...DEV, WEBHOOK_RETRY_SCHEDULE: '1s,2s,4s' }).WEBHOOK_RETRY_SCHEDULE).toEqual([1000, 2000, 4000]);
    expect(loadConfig({ ...DEV, WEBHOOK_RETRY_SCHEDULE: '250ms, 5m,2h,1d' }).WEBHOOK_RETRY_SCHEDULE).toEqual([250, 300_000, 7_200_000, 86_400_000]);
  });

  test('REGIONS in order, the first being the default', () => {
    expect(loadConfig({ ...DEV, REGIONS: 'us, eu' })).toMatchObject({ REGIONS: ['us', 'eu'], DEFAULT_REGION: 'us' });
  });

  test('a complete production environment', () => {
    const c = loadConfig({ ...PROD, PORT: '8080' });
    expect(c).toMatchObject({
      NODE_ENV: 'production',
      PORT: 8080,
      WEBHOOK_ALLOW_PRIVATE_HOSTS: false,
      KEY_HASH_SECRET: PROD.KEY_HASH_SECRET,
      SANDBOX_CALLBACK_SECRET: PROD.SANDBOX_CALLBACK_SECRET,
    });
  });
});

describe('webhook targets', () => {
  test('https only in production; development and tests may use http', () => {
    expect(webhookTargetPolicy(loadConfig(PROD))).toEqual({ allowPrivateHosts: false, httpsOnly: true });
    expect(webhookTargetPolicy(loadConfig(DEV))).toEqual({ allowPrivateHosts: false, httpsOnly: false });
    expect(webhookTargetPolicy(loadConfig({ NODE_ENV: 'test', WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' }))).toEqual({ allowPrivateHosts: true, httpsOnly: false });
  });
});
