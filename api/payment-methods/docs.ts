// The words the OpenAPI document says about which connectors pay an intent (create and retrieve of
// /payment-intents), kept beside the rules they describe (resolve.ts).

export const INTENT_CONNECTORS_DOC = [
  'Which connectors pay the intent is decided when the customer pays, by the same rules as GET /v202607/payment-methods, the hosted page and the embedded form.',
  "Unpinned: the tenant's checkout as it stands then — its live default orchestrator's live connectors (in order, failing over), else its live default form's live connectors that take a method of the form's list, else every live connector. A connector added or switched live after the intent was created is used; one no longer live is not.",
  "Pinned (v202608 `payment_form`, `orchestrator` or `connector`): the connectors the pin resolved to at create (refused then with 400 `pin_invalid` when none was live and took a method of the pinned form's list), in that order, less any no longer live when the customer pays; a connector added later is never used.",
  'An attempt naming a `connector` outside these is a 400 `connector_not_allowed`; with none left, 400 `no_connector`. Once paid, the v202608 retrieve names the `connector` that took the payment.',
].join(' ');
