// An invoice's charge as the subscription workflow asks for it and hears its outcome (activities/billing.ts).

export interface InvoiceCharge {
  tenantId: string;
  region: string;
  subscription: string;
  invoice: string;
  customer: string;
  amount: number;
  currency: string;
  paymentMethod: string;
  /** The invoice's intent so far, if any: a pending one is charged again, an ended one replaced. */
  paymentIntent: string | null;
  attempt: number;
  intentTimeoutSeconds: number;
}

export interface InvoiceChargeResult {
  paymentIntent: string;
  outcome: 'succeeded' | 'requires_action' | 'processing' | 'failed';
  failureCode: string | null;
  nextActionUrl: string | null;
}
