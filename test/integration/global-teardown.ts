import type { Cluster } from '../../scripts/cluster';
import type { Stack } from '../../scripts/stack';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as unknown as { __payorchStack?: Stack }).__payorchStack?.stop();
  // PAYORCH_IT_STACK=cluster: PostgreSQL, Temporal and FerretDB after the processes that use them.
  await (globalThis as unknown as { __payorchCluster?: Cluster | null }).__payorchCluster?.stop();
}
