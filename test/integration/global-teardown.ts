import type { Stack } from '../../scripts/stack';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as unknown as { __payorchStack?: Stack }).__payorchStack?.stop();
}
