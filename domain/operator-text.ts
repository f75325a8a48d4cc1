// Text shown to operators: in logs, and in the Temporal UI's summary and details lines, which render Markdown.

// Webhook URLs as log lines and the Temporal UI show them. A receiver's path and query often carry its secret (Slack-style
// `https://hooks.slack.com/services/T0/B0/<secret>`, `?token=`), so logs keep the scheme, host and port, enough
// to operate; the endpoint's id (`whe_`, a hash of tenant and full URL) tells one tenant's URLs apart.

const REDACTED = '[redacted]';

/** `https://hooks.example.com:8443/[redacted]` for `https://hooks.example.com:8443/services/T0/B0/x?y=1`. */
export function redactUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#\s]*)(.*)$/is.exec(url.trim());
  if (!m) return REDACTED;
  // Credentials are refused at input; should any get through, they go too.
  const host = m[2]!.replace(/^.*@/s, '');
  return `${m[1]}${host}${m[3] && m[3] !== '/' ? `/${REDACTED}` : ''}`;
}

/**
 * Merchant-given text (a cart's user id, a product id) as plain text in the Temporal UI, which renders summary
 * and details lines as Markdown: a merchant could otherwise show operators bold text or a link of its choosing.
 */
export function plainText(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, ' ');
}
