// What the customer reads on the hosted page, in English. Every language has a table of the same shape
// (locales/*.ts, checked by the compiler against this one). `{name}` marks a value filled in when shown:
// the merchant, an amount, a card number, a failure reason. The page script receives the part it uses in its
// config (locale.ts CLIENT_KEYS), so the server-rendered page and the script say the same thing.

export const EN = {
  // ---- the page --------------------------------------------------------------------------------
  title: 'Pay {merchant} · {amount}',
  heading: 'Pay {merchant}',
  embedLabel: 'Pay {merchant} {amount}',
  items: 'Items',
  quantityTimesPrice: '{quantity} × {price}',
  reference: 'Reference',
  orderReference: 'Order reference',
  payBefore: 'Pay before',
  testMode: 'Test mode',
  paymentMethod: 'Payment method',
  methodSelected: 'Selected',
  methodUnavailable: 'Not available in the sandbox',
  cardUnavailable: 'Card payments are not available for this payment. Please contact {merchant}.',
  payWithCard: 'Pay with card',
  cardNumber: 'Card number',
  expiryDate: 'Expiry date',
  expiryPlaceholder: 'MM / YY',
  cvc: 'CVC',
  cvcHint: '3 digits on the back, 4 on the front for Amex',
  nameOnCard: 'Name on card',
  optional: '(optional)',
  /** Offered when the merchant asked to keep the card for later (setup_future_usage) and the intent has a customer. */
  saveCard: 'Save this card for future payments',
  pay: 'Pay {amount}',
  noscript: 'Please enable JavaScript to pay by card: card details are sent straight to the payment gateway by this page.',
  testHint: 'Test mode: pay with {successCard}, any future expiry date and any CVC. {challengeCard} asks for {threeDSecure}.',
  pageNote: 'Card details go straight to the payment gateway. {merchant} never sees your full card number.',
  securedBy: 'Secured by {product}',
  returnTo: 'Return to {merchant}',
  continue: 'Continue',

  // ---- outcomes ----------------------------------------------------------------------------------
  succeededTitle: 'Payment successful',
  succeededMessage: '{amount} paid to {merchant}.',
  /** Under a success whose attempt saved the card. */
  cardSaved: 'Card saved',
  expiredTitle: 'This payment has expired',
  expiredMessage: 'The time to pay has run out. Nothing was charged. Contact {merchant} to try again.',
  canceledTitle: 'This payment was canceled',
  canceledMessage: '{merchant} canceled this payment. Nothing was charged.',
  // Also what a customer reads while a charge whose answer was lost is reconciled: never "declined".
  processingTitle: 'Checking your payment…',
  processingMessage: 'This usually takes a few seconds. Please keep this page open; you will not be charged twice.',
  pendingTitle: 'This payment is not complete yet',
  pendingMessage: 'Nothing has been charged so far.',
  goToPaymentPage: 'Go to the payment page',
  closeWindow: 'You can close this window.',
  takingBack: 'Taking you back to {merchant}…',
  takingToReceipt: 'Taking you to your receipt…',
  notCompleted: 'Payment not completed',
  notFoundTitle: 'Payment not found',
  notFoundMessage: 'This payment link is invalid or incomplete. Check the link you were given, or contact the merchant.',
  unavailableTitle: 'Temporarily unavailable',
  unavailableMessage: 'We cannot load this payment right now. Please try again in a moment.',

  // ---- failures: "Payment failed: your card was declined, try another card." ---------------------
  failed: 'Payment failed: {reason}, try another card.',
  /** Gateway failure codes in the customer's words. Unknown codes get `genericFailure`. */
  failureReasons: {
    card_declined: 'your card was declined',
    insufficient_funds: 'your card has insufficient funds',
    authentication_failed: 'the authentication with your bank failed',
    expired_card: 'your card has expired',
    incorrect_cvc: 'the security code is incorrect',
    invalid_token: 'your card details could not be used',
    processing_error: 'the payment could not be processed',
    payment_intent_canceled: 'this payment is no longer open',
  },
  genericFailure: 'the payment was declined',

  // ---- the card form, as the script checks and submits it ----------------------------------------
  enterCardNumber: 'Enter your card number.',
  invalidCardNumber: 'Your card number is invalid.',
  enterExpiry: 'Enter the expiry date.',
  expiryFormat: 'Enter the expiry date as {format}.',
  cardExpired: 'Your card has expired.',
  enterCvc: 'Enter the security code (CVC).',
  cvcDigits: 'The security code has {digits} digits.',
  checkValue: 'Check this value.',
  checkHighlighted: 'Check the highlighted card details.',
  processing: 'Processing…',
  processingPayment: 'Processing your payment…',
  cardCheckUnavailable: 'Your card could not be checked right now. Please try again.',
  unreachable: 'We could not reach the payment service. Check your connection and try again.',
  couldNotStart: 'The payment could not be started. Please try again.',
  attemptLimit: 'This payment has reached its limit of payment attempts.',
  redirectingToBank: 'Redirecting to your bank…',
  confirmTitle: 'Confirm with your bank',
  confirmMessage: 'Your bank needs you to confirm this payment in a new window.',
  openBankPage: 'Open your bank’s page',
  completeInWindow: 'Complete the confirmation in the window that opened. This page updates by itself.',
  bankSlow: 'Your bank is taking longer than usual. Please keep this page open; it updates by itself.',
};

/** A language's table: the same keys as the English one, every one of them translated. */
export type Texts = typeof EN;
