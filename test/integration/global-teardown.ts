import type { Cluster } from '../../scripts/cluster';
import type { Stack } from '../../scripts/stack';
import { recordSuiteHistories } from './record-histories';

export default async function globalTeardown(): Promise<void> {
  const stack = (globalThis as unknown as { __payorchStack?: Stack }).__payorchStack;
  try {
    if (stack && process.env.RECORD_HISTORIES === '1') {
      const kept = await recordSuiteHistories(stack.temporalAddress);
      process.stdout.write(`\n[integration] recorded histories:\n  ${kept.join('\n  ')}\n`);
    }
  } finally {
    await stack?.stop();
    // PAYORCH_IT_STACK=cluster: PostgreSQL, Temporal and FerretDB after the processes that use them.
    await (globalThis as unknown as { __payorchCluster?: Cluster | null }).__payorchCluster?.stop();
  }
}
