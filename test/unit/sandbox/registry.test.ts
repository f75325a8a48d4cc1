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

describe('gateway registry: broken sandbox connectors', () => {
  const registry = createGatewayRegistry({
    sandboxUrl: 'http://127.0.0.1:4010',
    sandboxCallbackSecret: 'secret-123',
    sandboxDownUrl: 'http://127.0.0.1:9999',
  });

  it('answers one adapter per behaviour; no behaviour is the working connector', () => {
    const working = registry.get('sandbox');
    expect(registry.get('sandbox', {})).toBe(working);
    expect(registry.get('sandbox', { sandboxBehavior: null })).toBe(working);
    expect((working as SandboxGateway).behavior).toBeUndefined();

    const down = registry.get('sandbox', { sandboxBehavior: 'down' });
    const timeout = registry.get('sandbox', { sandboxBehavior: 'timeout' });
    expect(down).toBeInstanceOf(SandboxGateway);
    expect((down as SandboxGateway).behavior).toBe('down');
    expect((timeout as SandboxGateway).behavior).toBe('timeout');
    expect(new Set([working, down, timeout]).size).toBe(3);
    expect(registry.get('sandbox', { sandboxBehavior: 'down' })).toBe(down);
    expect(down.name).toBe('sandbox');
    expect(registry.names()).toEqual(['sandbox']);
  });

  it('refuses an unknown behaviour, non-retryably', () => {
    expect(() => registry.get('sandbox', { sandboxBehavior: 'flaky' as never })).toThrow(
      expect.objectContaining({ type: 'UnknownSandboxBehavior', nonRetryable: true }),
    );
    expect(() => registry.get('stripe', { sandboxBehavior: 'down' })).toThrow(expect.objectContaining({ type: 'UnknownGateway' }));
  });
});
