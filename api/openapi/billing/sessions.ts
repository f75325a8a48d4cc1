import type { OperationExample } from '../examples';
import type { ErrorCatalogEntry } from '../error-catalog';

// Being built (issue 15).
export const EXAMPLES: Record<string, OperationExample> = {};
export const ERRORS: ErrorCatalogEntry[] = [];
