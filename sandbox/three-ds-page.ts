// The 3D Secure challenge page a cardholder sees, styled like an issuer's ACS page. The form posts back to
// the sandbox with target=_top, so it also works when the hosted page shows the challenge in an iframe.

import type { ChargeRecord } from './resources';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Minor units to a display amount, with the currency's own number of decimals (JPY 0, EUR 2, KWD 3). */
export function formatAmount(amount: number, currency: string): string {
  try {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(amount / 10 ** digits);
  } catch {
    return `${amount} ${currency} (minor units)`;
  }
}

const STYLE = `
  *{box-sizing:border-box}
  body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;
    background:#eef1f5;font:15px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,sans-serif;color:#1a1f36}
  main{width:100%;max-width:420px;background:#fff;border-radius:10px;box-shadow:0 8px 30px rgba(20,30,60,.12);overflow:hidden}
  header{display:flex;justify-content:space-between;align-items:center;padding:16px 24px;border-bottom:1px solid #e3e8ee}
  header .bank{font-weight:700;letter-spacing:.02em}
  header .badge{font-size:12px;color:#556;border:1px solid #ccd;border-radius:4px;padding:2px 6px}
  section{padding:24px}
  h1{font-size:19px;margin:0 0 8px}
  p{margin:0 0 16px;color:#4f566b}
  dl{display:grid;grid-template-columns:auto 1fr;gap:6px 16px;margin:0 0 24px;font-size:14px}
  dt{color:#697386}dd{margin:0;font-weight:600;word-break:break-all}
  .actions{display:flex;flex-direction:column;gap:10px}
  button{font:inherit;font-weight:600;padding:12px;border-radius:6px;cursor:pointer;border:1px solid transparent}
  button.complete{background:#2f6fed;color:#fff}
  button.complete:hover{background:#2159c9}
  button.fail{background:#fff;color:#c0392b;border-color:#e0b4ae}
  button.fail:hover{background:#fdf1ef}
  footer{padding:12px 24px;background:#f7f9fc;font-size:12px;color:#8792a2}
  a{color:#2f6fed}
`;

function layout(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header><span class="bank">Sandbox Bank</span><span class="badge">3-D Secure</span></header>
${content}
<footer>Gateway sandbox: no real card or bank is involved.</footer>
</main>
</body>
</html>`;
}

export function challengePage(charge: ChargeRecord, action: string): string {
  return layout(
    'Confirm your payment',
    `<section>
<h1>Confirm your payment</h1>
<p>Your bank asks you to confirm this payment.</p>
<dl>
<dt>Amount</dt><dd>${escapeHtml(formatAmount(charge.amount, charge.currency))}</dd>
<dt>Reference</dt><dd>${escapeHtml(charge.id)}</dd>
<dt>Date</dt><dd>${escapeHtml(charge.createdAt.toISOString().slice(0, 10))}</dd>
</dl>
<form method="post" action="${escapeHtml(action)}" target="_top" class="actions">
<button type="submit" name="action" value="complete" class="complete">Complete authentication</button>
<button type="submit" name="action" value="fail" class="fail">Fail authentication</button>
</form>
</section>`,
  );
}

export function alreadyDonePage(charge: ChargeRecord): string {
  const outcome = charge.status === 'succeeded' ? 'completed' : 'ended';
  return layout(
    'Authentication finished',
    `<section>
<h1>Authentication ${outcome}</h1>
<p>This payment (${escapeHtml(charge.id)}) is ${escapeHtml(charge.status)}.</p>
<p><a href="${escapeHtml(charge.returnUrl)}" target="_top">Return to the merchant</a></p>
</section>`,
  );
}
