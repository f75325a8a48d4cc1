import type { Client } from '@temporalio/client';
import type { AppDeps } from '../deps';
import { startReturnRefund } from './service';

// A received return's refund, started by the worker for the return's workflow when the merchant's PUT that
// received it could not (api/returns/service.ts startReturnRefund, run with the worker's Temporal client).

export function createReturnRefunds(base: Omit<AppDeps, 'temporal'>) {
  return {
    start: (temporal: Client, req: { tenantId: string; region: string; returnId: string }) => startReturnRefund({ ...base, temporal }, req),
  };
}
