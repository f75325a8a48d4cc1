import { ApplicationFailure } from '@temporalio/common';
import { createGatewayRegistry } from '../../../gateways/registry';
import { SandboxGateway } from '../../../gateways/sandbox-adapter';

describe('gateway registry', () => {
  const registry = createGatewayRegistry({ sandboxUrl: 'http://127.0.0.1:4010', sandboxCallbackSecret: 'secret-123' });

  it('registers the sandbox', () => {
    expect(registry.names()).toEqual(['sandbox']);
    const sandbox = registry.get('sandbox');
    expect(sandbox).toBeInstanceOf(SandboxGateway);
    expect(sandbox.name).toBe('sandbox');
    expect(registry.get('sandbox')).toBe(sandbox);
  });

  it('throws a clear, non-retryable error for an unknown gateway', () => {
    let error: unknown;
    try {
      registry.get('stripe');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: 'UnknownGateway', nonRetryable: true });
    expect((error as Error).message).toBe('Unknown gateway "stripe"; registered gateways: sandbox');
  });
});
