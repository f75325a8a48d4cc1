// Shapes of the payout and payout-recipient documents. As everywhere, `tenant_id` is the tenant's typed id
// and scopes every read; the integer the older interface shows as `tenant_id` is `tenant_number`.

import type { PayoutBaseStatus, PayoutSubStatus, RecipientType } from '../domain/payouts';

export interface PayoutRecipientRecord {
  _id: string; // the public uuid
  /** The older interface's integer id, from the `payout_recipients` sequence. */
  id: number;
  tenant_id: string;
  tenant_number: number;
  gateway: string;
  recipient_type: RecipientType;
  /** null while the gateway registration is in flight (a crash there is finished by the next request). */
  gateway_recipient_id: string | null;
  bank_account_number: string | null;
  bank_account_name: string | null;
  bank_code: string | null;
  bank_name: string | null;
  mobile_money_number: string | null;
  mobile_money_provider: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  metadata: Record<string, string>;
  idempotency_key: string | null;
  /** `<tenant>:<key>`, or the uuid; inline recipients of a payout use `<tenant>:payout:<payout key>`. */
  idempotency_scope: string;
  created_at: Date;
  updated_at: Date;
}

export interface PayoutRecord {
  _id: string; // the payout uuid, also its workflow id
  id: number;
  tenant_id: string;
  tenant_number: number;
  region: string;
  recipient_uuid: string;
  gateway: string;
  connector_id: string;
  amount: number;
  currency: string;
  narration: string | null;
  metadata: Record<string, string>;
  status: PayoutBaseStatus;
  sub_status: PayoutSubStatus;
  failure_reason: string | null;
  gateway_payout_id: string | null;
  webhook_urls: string[];
  /** Where the webhook secret is kept (webhook_secrets), never the secret itself. */
  webhook_secret_ref: string | null;
  timeout_seconds: number;
  expires_at: Date;
  /** The gateway's word that came after the payout was already final (e.g. executed after its timeout). */
  late_outcome: { status: string; at: Date } | null;
  idempotency_key: string | null;
  idempotency_scope: string;
  created_at: Date;
  updated_at: Date;
  /** 0 from the API's insert; then each write of the payout's workflow is higher. */
  version: number;
}

/** The fields a payout workflow's write sets (data/payouts.ts applies them over an older version only). */
export interface PayoutPatch {
  id: string;
  version: number;
  sub_status: PayoutSubStatus;
  gateway_payout_id: string | null;
  failure_reason: string | null;
  late_outcome: { status: string; at: string } | null;
  updated_at: string;
}
