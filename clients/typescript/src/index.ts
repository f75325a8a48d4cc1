// The TypeScript client of the payment orchestration API. Generated: the types of every path, in
// generated/schema.ts (npm run generate:client). Hand-written: what generation cannot know.
export type { paths, components } from './generated/schema';
export { createPayorchClient, baseUrlFor, regionOfKey, type PayorchClient, type PayorchClientOptions } from './client';
export { retryingFetch, parseRetryAfter, isSafeToRepeat, type RetryOptions } from './retry';
export { idempotencyKey, idempotencyKeyFor } from './idempotency';
export { ApiError, unwrap, type ApiErrorBody, type CallResult } from './errors';
export { cursorItems, pageItems, paginationItems } from './pagination';
export { verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookHeaders, type VerifyWebhookOptions } from './webhooks';
