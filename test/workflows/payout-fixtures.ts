import type { PayoutInput } from '../../workflows/payout/messages';

// What the payout workflow tests share: a payout's input, each with its own uuid and integer id.

let n = 0;
export function payoutInput(timeoutSeconds: number, createdAt: Date): PayoutInput {
  n += 1;
  return {
    id: `00000000-0000-4000-8000-${String(Date.now() % 1e9).padStart(9, '0')}${String(n).padStart(3, '0')}`,
    number: n,
    tenantId: 'ten_eu_t',
    tenantNumber: 7,
    region: 'eu',
    connectorId: 'con_eu_t',
    gateway: 'sandbox',
    amount: 5000,
    currency: 'NGN',
    recipient: { uuid: 'rcp-uuid', gatewayRecipientId: 'rcp_1', recipientType: 'bank_account', bankAccountNumber: '0123456789', mobileMoneyNumber: null, mobileMoneyProvider: null },
    narration: 'June payout',
    metadata: {},
    webhooks: [],
    timeoutSeconds,
    createdAt: createdAt.toISOString(),
    webhookTaskQueue: 'webhooks-test',
  };
}
