import { BILLING_ERRORS } from './billing';
import { ERRORS as OPS_ERRORS } from './ops-examples';
// Every `code` the API answers in its error shape, `{"error": {"type", "code", "message", "param"?, "request_id"}}`,
// with its HTTP status, what it means and what to do. test/unit/api/error-catalog.test.ts scans the code for
// every code it can raise (DomainError constructions, the helpers of domain/errors.ts, the workflows'
// refusals as api/http/workflow-calls.ts maps them, the admissions' rejection codes) and fails when one is
// missing here, is documented with another status, or is documented here and raised nowhere.
// Published in every OpenAPI document (`x-error-catalog` and a section of the introduction) and as
// GET /docs/errors.json.

export interface ErrorCatalogEntry {
  code: string;
  /** Every status the code is answered with (most have one). */
  statuses: number[];
  /** What happened, in the merchant's words. */
  meaning: string;
  /** What to do about it. */
  action: string;
}

/** The error `type` a status is answered with (api/http/error-handler.ts). */
export const ERROR_TYPE_OF_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'card_error',
  403: 'permission_error',
  404: 'invalid_request_error',
  405: 'invalid_request_error',
  408: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
  431: 'invalid_request_error',
  500: 'api_error',
  503: 'api_error',
};

const FIX_REQUEST = 'Fix the request as `message` and `param` say; repeating it unchanged fails the same way.';

export const ERROR_CATALOG: ErrorCatalogEntry[] = [
  // Any request --------------------------------------------------------------------------------------------
  { code: 'parameter_invalid', statuses: [400], meaning: 'A parameter (`param` names it: `amount`, `webhooks[0][url]`, `filter.status`) has a value the endpoint does not accept, or the body is not a JSON object, or it has a `__proto__` key.', action: FIX_REQUEST },
  { code: 'parameter_missing', statuses: [400], meaning: 'A required parameter is absent (`param` names it).', action: FIX_REQUEST },
  { code: 'parameter_unknown', statuses: [400], meaning: 'The request has a parameter this endpoint does not know (often a typo, or a field of another version).', action: 'Remove it, or check the endpoint and version in this reference.' },
  { code: 'malformed_json', statuses: [400], meaning: 'The body is not valid JSON, or its bytes are not valid UTF-8.', action: 'Send a JSON object with `Content-Type: application/json`.' },
  { code: 'unsupported_media_type', statuses: [415], meaning: 'The body is not `application/json` in UTF-8 (another media type, or a `charset` other than `utf-8`).', action: 'Send the body as JSON with `Content-Type: application/json`.' },
  { code: 'unsupported_encoding', statuses: [415], meaning: 'The body has a `Content-Encoding` the API does not decode.', action: 'Send the body uncompressed (or gzip/deflate).' },
  { code: 'request_header_too_large', statuses: [431], meaning: 'The request line and headers together are larger than the server takes (16 KB): a very long URL or many or large headers. The connection is closed.', action: 'Send a shorter URL (ids and filters are short) and fewer headers.' },
  { code: 'malformed_request', statuses: [400], meaning: 'The request is not valid HTTP/1.1 (`message` has the parser\'s reason); it never reached an endpoint. The connection is closed.', action: 'Fix the client or proxy that sends it; ordinary HTTP libraries never do.' },
  { code: 'request_timeout', statuses: [408], meaning: 'The request\'s headers or body did not arrive in full in time. The connection is closed.', action: 'Send it again, with the same idempotency key.' },
  { code: 'payload_too_large', statuses: [413], meaning: 'The body is larger than 1 MB.', action: 'Send less: metadata, line items and payloads have their own limits well under it.' },
  { code: 'route_not_found', statuses: [404], meaning: 'No endpoint has this path (in this version or any earlier one it falls back to).', action: 'Check the path and the version prefix against this reference.' },
  { code: 'method_not_allowed', statuses: [405], meaning: 'The path exists but not with this HTTP method; the `Allow` header lists the methods it takes.', action: 'Use one of the methods in `Allow`.' },
  { code: 'unknown_version', statuses: [404], meaning: 'The path prefix is not a version (`v` and six digits, `v202608`).', action: 'Prefix the path with a version such as `/v202608`, or none for the version-neutral interface.' },
  { code: 'unknown_region', statuses: [404], meaning: 'No region is served at the host the request was sent to.', action: 'Call your region\'s host, `api-<region>.` on the base address (the region is in your key: `sk_eu_...`).' },
  { code: 'rate_limited', statuses: [429], meaning: 'Too many requests for this key (or, for card entry, this payment intent) in a short time.', action: 'Wait the seconds in `Retry-After`, then retry with the same idempotency key; spread bulk work out.' },
  { code: 'service_unavailable', statuses: [503], meaning: 'A dependency (database, workflow engine, worker) did not answer in time. A create may still have been applied.', action: 'Retry after `Retry-After` seconds with the same idempotency key: you get the first result, never a second object.' },
  { code: 'overloaded', statuses: [503], meaning: 'The API process has as many requests in flight as it takes (`API_MAX_IN_FLIGHT`); the request was refused before anything was done.', action: 'Retry after `Retry-After` seconds with the same idempotency key, and lower your concurrency.' },
  { code: 'internal_error', statuses: [500], meaning: 'An unexpected failure on our side; it is logged with the `request_id`.', action: 'Retry with the same idempotency key; if it persists, contact support with the `request_id`.' },
  { code: 'resource_missing', statuses: [400, 404], meaning: 'The object the path names does not exist for your account (404); or an id inside the body names nothing: 404 where that object is what the request acts on (the `payment_intent` of a refund, the `payment_method_uuid` of a saved-card charge), 400 where it is a detail of what is made (a customer, a recipient, an address); `param` says which.', action: 'Check the id, and that it belongs to the key\'s account and region; ids of another account read as unknown.' },
  { code: 'idempotency_key_in_use', statuses: [400, 409], meaning: 'This idempotency key was already used for another request: a payout, recipient, refund or older payment intent that moves other money (amount, currency, gateway, destination, payment), a return of another order, a cart of another user or currency, a checkout session, credit note or subscription with other parameters, or a create repeated under the `Idempotency-Key` header with another route or body (`param: "Idempotency-Key"`).', action: 'Use a new key for a new object; reuse a key only to repeat exactly the same request.' },
  { code: 'idempotency_request_in_progress', statuses: [409], meaning: 'The first request with this idempotency key is still being processed: a subscription create whose first invoice is still being charged (this repeat waited a few seconds for its answer), or a create repeated under the `Idempotency-Key` header while the first is answered. The repeat did nothing itself.', action: 'Retry after `Retry-After` seconds with the same body and key: you get the first request\'s answer.' },
  { code: 'update_rejected', statuses: [409], meaning: 'The payment workflow refused the change for a reason of its own (`message` says which).', action: 'Retrieve the object to see its current state before trying again.' },

  // Authentication and permissions ----------------------------------------------------------------------
  { code: 'invalid_api_key', statuses: [401], meaning: 'No key, a malformed `Authorization` header, an unknown key, a wrong admin token, or a client secret that is not this payment intent\'s.', action: 'Send `Authorization: Bearer sk_<region>_...` with a current key of this account.' },
  { code: 'api_key_revoked', statuses: [401], meaning: 'The key was revoked.', action: 'Use another key of the account (an admin issues new ones).' },
  { code: 'wrong_region', statuses: [401], meaning: 'The key belongs to another region than the host the request was sent to.', action: 'Send the request to the host of the key\'s region: `api-<region>.` on the base address.' },
  { code: 'secret_key_required', statuses: [403], meaning: 'A publishable key was used where a secret key is needed (it may only submit payment attempts).', action: 'Call from your backend with the secret key; never put it in a browser or an app.' },
  { code: 'publishable_key_required', statuses: [403], meaning: 'Payment attempts are submitted with a publishable key or the intent\'s client secret, not a secret key.', action: 'Submit attempts from the hosted page or the embedded form, which do this for you.' },
  { code: 'missing_claim', statuses: [403], meaning: 'The key lacks a claim the endpoint needs (`cards.mit` to charge saved cards).', action: 'Ask an admin for a secret key with the claim (POST /admin/tenants/{tenant}/api-keys).' },

  // Payment intents ---------------------------------------------------------------------------------------
  { code: 'payment_intent_invoice_owned', statuses: [400], meaning: "The payment intent pays a subscription's invoice: the subscription lets it go when the invoice is voided or paid another way.", action: 'Void the invoice (POST /v202607/invoices/{id}/void), or leave it to its dunning.' },
  { code: 'payment_intent_unexpected_state', statuses: [409], meaning: 'The payment intent is no longer pending (paid, canceled or expired), so it cannot be canceled, paid or charged.', action: 'Retrieve it: a paid intent needs nothing more; create a new intent to collect again.' },
  { code: 'attempt_in_progress', statuses: [409], meaning: 'Another payment attempt of this intent is still being processed (or replaced this charge).', action: 'Wait a few seconds and retrieve the intent; retry only if it is still pending.' },
  { code: 'attempt_limit_reached', statuses: [409], meaning: 'The intent has had as many payment attempts as it allows.', action: 'Create a new payment intent for the customer.' },
  { code: 'connector_not_allowed', statuses: [400], meaning: 'The attempt names a connector this payment intent may not use (it is pinned elsewhere, or the connector is not live).', action: 'Omit `connector`, or name one the intent\'s payment form offers.' },
  { code: 'no_connector', statuses: [400], meaning: 'The account has no live connector that can take this payment.', action: 'An admin connects a live gateway (POST /admin/tenants/{tenant}/connectors).' },
  { code: 'pin_conflict', statuses: [400], meaning: 'More than one of `payment_form`, `orchestrator`, `connector` was given.', action: 'Pin the intent with at most one of them.' },
  { code: 'pin_invalid', statuses: [400], meaning: 'The payment form, orchestrator or connector named is not a live one of this account.', action: 'Use an id from GET /admin/tenants/{tenant}, or leave the intent unpinned.' },
  { code: 'customer_required', statuses: [400], meaning: 'The attempt asks to save the card, but the payment intent has no customer, or its customer was deleted since.', action: 'Create the intent with a `customer` to save cards; pay without saving for a deleted one.' },
  { code: 'customer_deleted', statuses: [400], meaning: "A credit note would credit the balance of a customer that was deleted: that balance can no longer be spent or read.", action: 'Issue the credit note with `refund: true` to return the money to the card.' },
  { code: 'checkout_intent_completed', statuses: [409], meaning: 'Another payment of this checkout intent has already succeeded (a saved-card charge that lost that race was given back: its capture voided).', action: 'Nothing more to collect: show the order as paid.' },
  { code: 'amount_mismatch', statuses: [400], meaning: '`amount` differs from the checkout intent\'s.', action: 'Omit `amount` (it is taken from the checkout intent) or send the same.' },
  { code: 'currency_mismatch', statuses: [400], meaning: '`currency` differs from the checkout intent\'s.', action: 'Omit `currency` or send the checkout intent\'s.' },
  { code: 'gateway_invalid', statuses: [400], meaning: 'The gateway named is unknown, or not one of this account\'s live (or payout) connectors.', action: 'Use a gateway from GET /gateways (payments) or one registered for payouts.' },
  { code: 'no_gateway', statuses: [400], meaning: 'The account has no live connector that takes payments.', action: 'An admin connects a live gateway first.' },
  { code: 'tenant_mismatch', statuses: [400], meaning: '`tenant` names another account than the key\'s.', action: 'Omit `tenant`: the key says which account it is.' },
  { code: 'tenant_missing', statuses: [400], meaning: 'The key\'s account no longer exists.', action: 'Contact support.' },

  // Refunds ---------------------------------------------------------------------------------------------------
  { code: 'REFUND_TX_MUST_BE_SUCCESSFUL', statuses: [400], meaning: 'The payment intent has no successful payment to refund.', action: 'Refund only intents whose status is `success`.' },
  { code: 'REFUND_CCY_MISMATCH', statuses: [400], meaning: 'The refund currency differs from the paid currency.', action: 'Refund in the currency the customer paid in.' },
  { code: 'REFUND_RQST_AMT_GREATER_THAN_TX_AMT', statuses: [400], meaning: 'The amount exceeds what is left to refund (the paid amount less refunds made or pending).', action: 'Refund at most `refundable_amount_left` (see the previous refund\'s answer).' },

  // Saved cards -------------------------------------------------------------------------------------------
  { code: 'NO_GATEWAY_TOKENS', statuses: [400], meaning: 'The card has no gateway token from a successful customer-present payment, so it cannot be charged with the customer absent.', action: 'Have the customer pay once on the hosted page with `setup_future_usage: off_session`.' },
  { code: 'payment_method_detached', statuses: [400], meaning: 'The saved card was detached from its customer, or its customer was deleted (which detaches every card of theirs).', action: 'Ask the customer for a new card.' },
  { code: 'payment_method_customer_mismatch', statuses: [400], meaning: 'The card is saved to another customer than the payment intent\'s.', action: 'Charge a card of the intent\'s customer.' },
  { code: 'agreement_type_mismatch', statuses: [400], meaning: 'The agreement was first used with another `agreement_type`.', action: 'Send the agreement\'s original type, or a new `agreement_id`.' },
  { code: 'card_declined', statuses: [402], meaning: 'The issuer declined the charge; `decline_code` says why (`insufficient_funds`, `expired_card`, `do_not_honor`, ...). The payment intent stays pending.', action: 'Ask the customer to pay with another card on the hosted page; do not retry a declined card automatically.' },
  { code: 'processing_error', statuses: [402], meaning: 'The gateway failed the charge for a reason that is not the card\'s. The payment intent stays pending.', action: 'Retry later with the same `agreement_id`, or have the customer pay on the hosted page.' },
  { code: 'connector_unavailable', statuses: [503], meaning: 'The card\'s connector did not answer; nothing was charged.', action: 'Retry after `Retry-After` seconds.' },
  { code: 'agreement_first_charge_in_progress', statuses: [409], meaning: 'The agreement\'s first charge is still under way (a concurrent request, awaiting 3D Secure or the gateway); later charges under it must send the network transaction id it gives, so this one waited a few seconds and was not sent. Nothing was charged.', action: 'Retry after `Retry-After` seconds with the same body; once the first charge has its outcome, the charge goes through (or becomes the first charge, if that one failed).' },
  // Gateway failures passed through on a 402 of POST /cards/mit (they are not the issuer's, so no decline_code).
  { code: 'network_transaction_id_missing', statuses: [402], meaning: 'The gateway refused the charge: the agreement already has a first charge, and this one did not carry its network transaction id. The payment intent stays pending.', action: 'Retry the same call after a few seconds (it then sends the id); if it persists, contact support with the `request_id`.' },
  { code: 'network_transaction_id_mismatch', statuses: [402], meaning: 'The gateway refused the charge: the network transaction id it carried is not the one of the agreement\'s first charge at the gateway. The payment intent stays pending.', action: 'Contact support with the `request_id` and the `agreement_id`; a new `agreement_id` starts a new agreement.' },
  { code: 'invalid_token', statuses: [402], meaning: 'The gateway does not know the saved card\'s token (expired or removed at the gateway). The payment intent stays pending.', action: 'Have the customer pay on the hosted page, saving the card again.' },
  { code: 'payment_method_not_reusable', statuses: [402], meaning: 'The gateway refused the saved card\'s token for a charge with the customer absent: it is not a reusable token. The payment intent stays pending.', action: 'Have the customer pay on the hosted page with `setup_future_usage: off_session`, saving the card again.' },

  // Webhooks and events -------------------------------------------------------------------------------------
  { code: 'webhook_url_invalid', statuses: [400], meaning: 'A webhook URL points where deliveries may not go (a private or loopback address, a non-http(s) scheme).', action: 'Use a public https URL of your service.' },
  { code: 'webhook_signing_secret_conflict', statuses: [409], meaning: 'Two rotations of the signing secret read the same secret at the same time: the other one rotated.', action: 'Read the secret; rotate again if it is not the one you expect. Send an idempotency_key to make a retry safe.' },
  { code: 'webhook_signing_secret_rotation_limit', statuses: [409], meaning: 'Three previous signing secrets still sign beside the current one (three rotations within 24 hours): a rotation would keep a fourth.', action: 'Rotate again once the oldest previous secret expires (its previous[].expires_at; the message says when).' },
  { code: 'webhook_endpoint_disabled', statuses: [409], meaning: 'The webhook endpoint is disabled: every attempt to it failed for the disable period (`webhook_endpoint.disabled` event), and deliveries to it are parked.', action: 'Fix the endpoint, then have an admin re-enable it with replay_missed, which sends what it missed.' },
  { code: 'webhook_endpoint_not_disabled', statuses: [409], meaning: 'Only a disabled webhook endpoint can be re-enabled.', action: 'List the endpoints to see their state.' },
  { code: 'delivery_ended', statuses: [409], meaning: 'The webhook delivery has ended (delivered, failed, gone or parked): it has no next attempt to bring forward.', action: 'Redeliver the event (a new delivery) instead.' },

  // Customers ---------------------------------------------------------------------------------------------------
  { code: 'reference_in_use', statuses: [400], meaning: 'Another customer already has this `reference`.', action: 'Update that customer (POST /customers with the same reference does), or use another reference.' },

  // Payouts -----------------------------------------------------------------------------------------------------
  { code: 'gateway_mismatch', statuses: [400], meaning: 'The recipient is registered with another gateway than the payout names.', action: 'Pay out through the recipient\'s gateway, or register the recipient with this one.' },
  { code: 'recipient_registration_failed', statuses: [400], meaning: 'The gateway refused the recipient (`message` gives its reason).', action: 'Check the account or wallet details with the recipient.' },
  { code: 'gateway_unavailable', statuses: [503], meaning: 'The payout gateway did not answer.', action: 'Retry after `Retry-After` seconds with the same idempotency key.' },
  { code: 'payout_closed', statuses: [409], meaning: 'The payout has ended; there is nothing more to ask the gateway.', action: 'Read it with GET /payouts/{uuid}.' },

  // Admin ----------------------------------------------------------------------------------------------------------
  { code: 'region_invalid', statuses: [400], meaning: 'The region is not one this deployment serves.', action: 'Use one of the regions `message` lists.' },
  { code: 'connector_invalid', statuses: [400], meaning: 'A connector named is not one of this tenant\'s.', action: 'Use connector ids from GET /admin/tenants/{tenant}.' },
  { code: 'payment_method_unsupported', statuses: [400], meaning: 'No connector of the form takes a payment method the form lists.', action: 'List only methods its connectors take, or add a connector that takes it.' },
  { code: 'discrepancy_already_resolved', statuses: [409], meaning: 'The reconciliation discrepancy was resolved before (the message names by whom).', action: 'Read it with GET /admin/reconciliation/discrepancies/{discrepancy}; nothing more to do.' },

  // Commerce ---------------------------------------------------------------------------------------------------------
  { code: 'sku_taken', statuses: [409], meaning: 'The tenant already has a product with this `sku`.', action: 'Use another sku, or update the existing product (PATCH).' },
  { code: 'product_unknown', statuses: [400], meaning: 'A product of the cart does not exist for this tenant.', action: 'Use product ids from the catalog endpoints.' },
  { code: 'product_duplicate', statuses: [400], meaning: 'The same product is listed twice in the cart.', action: 'List each product once with its whole quantity.' },
  { code: 'product_currency_mismatch', statuses: [400], meaning: 'The product is priced in another currency than the cart.', action: 'Open a cart in the product\'s currency.' },
  { code: 'quantity_invalid', statuses: [400], meaning: 'A quantity is below 1.', action: 'Leave a product out to remove it.' },
  { code: 'quantity_above_stock', statuses: [400], meaning: 'More of a product than is in stock.', action: 'Lower the quantity to the stock `message` gives.' },
  { code: 'cart_total_too_large', statuses: [400], meaning: 'The cart\'s total (or its checkout\'s, with live prices, tax and shipping) would exceed the largest amount a payment can take.', action: 'Split the order.' },
  { code: 'cart_empty', statuses: [400], meaning: 'The cart has no products.', action: 'Set its products with POST /cart first.' },
  { code: 'cart_converted', statuses: [409], meaning: 'The cart was checked out and paid; it can no longer change.', action: 'Create a new cart.' },
  { code: 'checkout_in_progress', statuses: [409], meaning: 'The cart has an open checkout (being made, or awaiting payment): its contents cannot change, and a checkout of other contents cannot be made, until it is paid or ends.', action: 'Pay that checkout, or cancel its payment intent (or let it expire) before changing the cart; after a POST /checkouts, retry in a moment: you get that checkout.' },
  { code: 'cart_changed', statuses: [409], meaning: 'Other requests kept changing the cart while this one was changing or checking it out.', action: 'Read the cart, then send the request again.' },
  { code: 'subscription_total_too_large', statuses: [400], meaning: 'An invoice of the subscription would come to more than the largest amount a payment can take (99,999,999,999 minor units): its items a period, plus its exclusive tax (inclusive tax is inside the prices) and, on a change of items, the prorations pending for the next invoice or invoiced now (`always_invoice`). Discounts do not count: a coupon can end.', action: 'Lower the quantity, or split the items over subscriptions.' },
  { code: 'stock_change_too_large', statuses: [400], meaning: 'A stockChange would leave fewer than 0 units on hand; nothing changed.', action: 'Read the product again and take away at most what is on hand, or set the counted stock with `stock`.' },
  { code: 'checkout_total_zero', statuses: [400], meaning: 'The checkout would total 0 (free products, no tax or shipping); a payment must be above 0, so nothing was held.', action: 'A checkout must have something to pay: check free products out together with a priced one (or with shipping).' },
  { code: 'checkout_not_open', statuses: [409], meaning: 'The checkout ended (changed, abandoned or canceled) before its payment intent was made.', action: 'Check the cart out again.' },
  { code: 'return_window_closed', statuses: [400], meaning: 'The order\'s return window has closed.', action: 'Nothing to do through the API; handle it with the shopper directly.' },
  { code: 'return_quantity_exceeded', statuses: [400], meaning: 'More of the product than can still be returned (open returns count).', action: 'Return at most `returnableQuantity` (GET /orders/{orderId}).' },
  { code: 'product_not_in_order', statuses: [400], meaning: 'The product is not in this order.', action: 'Use a product id of the order.' },
  { code: 'order_not_paid', statuses: [400], meaning: 'The order is not paid, so nothing can be returned.', action: 'Wait for the payment.' },
  { code: 'return_transition_invalid', statuses: [409], meaning: 'The return\'s status does not allow this move (`requested` -> `approved` -> `received`, or `rejected`).', action: 'Retrieve the return and move it from where it is.' },
  ...BILLING_ERRORS,
  ...OPS_ERRORS,
];

const byCode = new Map(ERROR_CATALOG.map((e) => [e.code, e]));

export function catalogEntry(code: string): ErrorCatalogEntry | undefined {
  return byCode.get(code);
}

/** The catalog as published (GET /docs/errors.json, `x-error-catalog`), sorted by status then code. */
export function errorCatalogView() {
  const entries = [...ERROR_CATALOG].sort((a, b) => a.statuses[0]! - b.statuses[0]! || a.code.localeCompare(b.code));
  return {
    shape: { error: { type: 'string', code: 'string', message: 'string', param: 'string (optional)', request_id: 'string' } },
    errors: entries.map((e) => ({ code: e.code, statuses: e.statuses, types: [...new Set(e.statuses.map((s) => ERROR_TYPE_OF_STATUS[s] ?? 'api_error'))], meaning: e.meaning, action: e.action })),
  };
}

const STATUS_TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  402: 'Payment failed',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Service unavailable',
};

/**
 * The catalog as a section of a document's introduction (markdown, rendered by the reference): one list per
 * status, since the reference's text column is too narrow for a four-column table.
 */
export function errorCatalogMarkdown(): string {
  const statuses = [...new Set(ERROR_CATALOG.flatMap((e) => e.statuses))].sort((a, b) => a - b);
  const oneLine = (s: string) => s.replace(/\n/g, ' ');
  return [
    '## Error codes',
    '',
    'Every error has the same shape: `{"error": {"type": "invalid_request_error", "code": "parameter_invalid", "message": "...", "param": "amount", "request_id": "req_..."}}`. Branch on `code`; `message` is for people and may change. A card decline also carries `decline_code` and `transaction_uuid`. The same catalog is served as JSON at [/docs/errors.json](/docs/errors.json).',
    ...statuses.flatMap((status) => [
      '',
      `### ${status} ${STATUS_TITLES[status] ?? ''}`,
      '',
      `Error type \`${ERROR_TYPE_OF_STATUS[status] ?? 'api_error'}\`.`,
      '',
      ...ERROR_CATALOG.filter((e) => e.statuses.includes(status))
        .sort((a, b) => a.code.localeCompare(b.code))
        .map((e) => {
          const also = e.statuses.filter((s) => s !== status);
          return `- **\`${e.code}\`**${also.length ? ` (also ${also.join(', ')})` : ''}: ${oneLine(e.meaning)} *What to do:* ${oneLine(e.action)}`;
        }),
    ]),
  ].join('\n');
}
