// The custom search attributes the Temporal server must have registered before any workflow starts: the one
// list that `temporal server start-dev` (via searchAttributeFlags) and docker-compose (the temporal-setup
// service; test/unit/deploy/docker-compose.test.ts keeps the two equal) register.
//
// No imports, so workflow code may import this file too. Types are spelled the way the Temporal CLI and
// server spell them (`--type Keyword`), not the SDK's SearchAttributeType constants (`KEYWORD`).
//
// SQL visibility stores (PostgreSQL, MySQL, SQLite) have a fixed number of slots per type and namespace:
// 10 Keyword, 3 Int, 3 Datetime, 3 Double, 3 Bool, 3 Text, 3 KeywordList. This list uses all 10 Keyword
// slots; another Keyword attribute needs Elasticsearch visibility, or an existing one dropped.

export type SearchAttributeTypeName = 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

export const SEARCH_ATTRIBUTES = {
  TenantId: 'Keyword',
  PaymentStatus: 'Keyword',
  AmountMinor: 'Int',
  Currency: 'Keyword',
  ExpiresAt: 'Datetime',
  CustomerId: 'Keyword',
  Connector: 'Keyword',
  PaymentIntentId: 'Keyword',
  RefundStatus: 'Keyword',
  EventType: 'Keyword',
  DeliveryStatus: 'Keyword',
  WebhookUrl: 'Keyword',
  /** A payment intent's open attempt is `unknown`: its charge is being reconciled with the gateway (docs/runbook.md). */
  AttemptUnknown: 'Bool',
} as const satisfies Record<string, SearchAttributeTypeName>;

export type SearchAttributeName = keyof typeof SEARCH_ATTRIBUTES;

/** `['--search-attribute', 'TenantId=Keyword', ...]`, the flags `temporal server start-dev` takes. */
export function searchAttributeFlags(): string[] {
  return Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]);
}
