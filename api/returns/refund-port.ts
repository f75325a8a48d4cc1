import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { DomainError } from '../../domain/errors';
import type { AppDeps } from '../deps';
import { startReturnRefund } from './service';

// A received return's refund, started by the worker for the return's workflow when the merchant's PUT that
// received it could not (api/returns/service.ts startReturnRefund, run with the worker's Temporal client).

export function createReturnRefunds(base: Omit<AppDeps, 'temporal'>) {
  return {
    async start(temporal: Client, req: { tenantId: string; region: string; returnId: string }) {
      try {
        return await startReturnRefund({ ...base, temporal }, req);
      } catch (err) {
        // A refusal (its order or payment gone) will not change on a retry; a 503 (Temporal busy) may.
        if (err instanceof DomainError && err.kind !== 'unavailable') throw ApplicationFailure.nonRetryable(err.message, err.code);
        throw err;
      }
    },
  };
}
