import { ConfigError, loadConfig } from '../../../platform/config';

// loadConfig refuses a wrong value with a message naming the variable, and accepts an empty environment.

const PROD = {
  NODE_ENV: 'production',
  ADMIN_API_TOKEN: 'a'.repeat(32),
  KEY_HASH_SECRET: 'k'.repeat(32),
  PUBLIC_BASE_URL: 'https://pay.example.com',
};

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
    ['NODE_ENV', { NODE_ENV: 'staging' }],
  ])('%s in %j', (name, env) => {
    const err = refusal(env);
    // a list variable is named with the index of the bad item (REGIONS.0)
    expect(err.message).toMatch(new RegExp(`^\\s+${name}(\\.\\d+)?: `, 'm'));
  });

  test.each(['ADMIN_API_TOKEN', 'KEY_HASH_SECRET', 'PUBLIC_BASE_URL'])('production without %s', (name) => {
    const env: Record<string, string> = { ...PROD };
    delete env[name];
    const err = refusal(env);
    expect(err.message).toMatch(new RegExp(`^\\s+${name}: is required in production`, 'm'));
    // only the missing one is named
    for (const other of ['ADMIN_API_TOKEN', 'KEY_HASH_SECRET', 'PUBLIC_BASE_URL'].filter((n) => n !== name)) expect(err.message).not.toContain(other);
  });

  test('production with none of the three names all three', () => {
    const err = refusal({ NODE_ENV: 'production' });
    for (const name of ['ADMIN_API_TOKEN', 'KEY_HASH_SECRET', 'PUBLIC_BASE_URL']) expect(err.message).toContain(`${name}: is required in production`);
  });

  test('production with WEBHOOK_ALLOW_PRIVATE_HOSTS=true', () => {
    const err = refusal({ ...PROD, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
    expect(err.message).toMatch(/^\s+WEBHOOK_ALLOW_PRIVATE_HOSTS: must be false in production/m);
  });

  test('a bad value never echoes secrets of other variables', () => {
    const err = refusal({ ...PROD, PORT: 'abc' });
    expect(err.message).not.toContain(PROD.ADMIN_API_TOKEN);
    expect(err.message).not.toContain(PROD.KEY_HASH_SECRET);
  });
});

describe('accepts', () => {
  test('an empty environment, with the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      NODE_ENV: 'development',
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
    });
    expect(c.WEBHOOK_RETRY_SCHEDULE).toBeUndefined();
    expect(c.KEY_HASH_SECRET.length).toBeGreaterThanOrEqual(16);
  });

  test('empty strings count as unset', () => {
    expect(loadConfig({ PORT: '', REGIONS: '' })).toMatchObject({ PORT: 3000, REGIONS: ['eu'] });
  });

  test("WEBHOOK_RETRY_SCHEDULE '1s,2s,4s' is [1000, 2000, 4000]", () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1s,2s,4s' }).WEBHOOK_RETRY_SCHEDULE).toEqual([1000, 2000, 4000]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '250ms, 5m,2h,1d' }).WEBHOOK_RETRY_SCHEDULE).toEqual([250, 300_000, 7_200_000, 86_400_000]);
  });

  test('REGIONS in order, the first being the default', () => {
    expect(loadConfig({ REGIONS: 'us, eu' })).toMatchObject({ REGIONS: ['us', 'eu'], DEFAULT_REGION: 'us' });
  });

  test('a complete production environment', () => {
    const c = loadConfig({ ...PROD, PORT: '8080' });
    expect(c).toMatchObject({ NODE_ENV: 'production', PORT: 8080, WEBHOOK_ALLOW_PRIVATE_HOSTS: false, KEY_HASH_SECRET: PROD.KEY_HASH_SECRET });
  });
});
