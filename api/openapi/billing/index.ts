import type { OperationExample } from '../examples';
import type { ErrorCatalogEntry } from '../error-catalog';
import * as catalog from './catalog';
import * as clocks from './clocks';
import * as subscriptions from './subscriptions';
import * as sessions from './sessions';

// Recurring billing's examples and error codes, one file per part (plans, tax rates, coupons and promotion
// codes; test clocks; subscriptions, invoices and credit notes; checkout and portal sessions), merged into
// the reference's examples and error catalog.
const PARTS = [catalog, clocks, subscriptions, sessions];

export const BILLING_EXAMPLES: Record<string, OperationExample> = Object.assign({}, ...PARTS.map((p) => p.EXAMPLES));
export const BILLING_ERRORS: ErrorCatalogEntry[] = PARTS.flatMap((p) => p.ERRORS);
