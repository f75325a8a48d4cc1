import { DEV_CALLBACK_SECRET, loadSandboxConfig, SandboxConfigError } from '../../../sandbox/config';

// The sandbox follows the API's rule: dev defaults only when NODE_ENV says development (or test); with no
// NODE_ENV it is production and needs its own callback secret.

function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadSandboxConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(SandboxConfigError);
    return (err as Error).message;
  }
  throw new Error(`loadSandboxConfig accepted ${JSON.stringify(env)}`);
}

test('no NODE_ENV is production: the callback secret is required', () => {
  expect(refusal({})).toMatch(/^\s+SANDBOX_CALLBACK_SECRET: is required in production$/m);
});

test('production refuses the development callback secret, without echoing it', () => {
  const message = refusal({ NODE_ENV: 'production', SANDBOX_CALLBACK_SECRET: DEV_CALLBACK_SECRET });
  expect(message).toMatch(/^\s+SANDBOX_CALLBACK_SECRET: must not be the development default in production$/m);
  expect(message).not.toContain(DEV_CALLBACK_SECRET);
});

test('production with its own secret', () => {
  expect(loadSandboxConfig({ SANDBOX_CALLBACK_SECRET: 'a-production-callback-secret' }).callbackSecret).toBe('a-production-callback-secret');
});

test.each(['development', 'test'])('NODE_ENV=%s gets the dev secret the dev API expects', (nodeEnv) => {
  expect(loadSandboxConfig({ NODE_ENV: nodeEnv })).toMatchObject({ callbackSecret: DEV_CALLBACK_SECRET, port: 4010, host: '127.0.0.1' });
});
