import { defineQuery, defineUpdate } from '@temporalio/workflow';

// A customer's credit balance in one currency (credit notes put money in, invoices take it out first) is
// owned by one workflow: every change is a check-and-change on one number, so it happens in an Update
// handler, never as a read-then-write in MongoDB. Started lazily (update-with-start) from the record's figures.

export const CUSTOMER_BALANCE_WORKFLOW = 'customerBalanceWorkflow';

export const balanceWorkflowId = (customer: string, currency: string): string => `customer-balance:${customer}:${currency}`;

export interface CustomerBalanceInput {
  tenantId: string;
  customer: string;
  currency: string;
  /** The record's figures when this run starts: a run after an idle close goes on from them. */
  creditOnRecord: number;
  versionOnRecord: number;
  carried?: { credit: number; version: number; keys: [string, number][] };
}

/** Adds credit once per `key` (a credit note, an invoice whose total was negative). */
export const addCreditUpdate = defineUpdate<{ credit: number }, [{ key: string; amount: number }]>('addCredit');

/** Takes up to `max` for invoice `key`, once per key: answers what was taken. */
export const drawCreditUpdate = defineUpdate<{ drawn: number; credit: number }, [{ key: string; max: number }]>('drawCredit');

export const balanceQuery = defineQuery<{ credit: number }>('balance');
