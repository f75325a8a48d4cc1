import { createHmac } from 'node:crypto';
import { hashesEqual } from '../../platform/keys';

// The billing portal's forms. The session's unguessable id in the URL is the capability; on top of it every
// form carries a CSRF token bound to the session (an HMAC of its id under the server's pepper, so nothing is
// stored), and a plan switch's confirm step carries a token binding what the customer was shown: the
// subscription, the plan and the `proration_date` its figures were computed for. A request cannot change the
// instant its prorations are computed at, nor confirm a plan it was not shown.

const mac = (pepper: string, what: string) => createHmac('sha256', pepper).update(what).digest('hex');

export function csrfTokenFor(session: string, pepper: string): string {
  return mac(pepper, `billing-portal-csrf:${session}`);
}

export function switchTokenFor(session: string, subscription: string, plan: string, prorationDate: number, pepper: string): string {
  return mac(pepper, `billing-portal-switch:${session}:${subscription}:${plan}:${prorationDate}`);
}

const isHex64 = (s: unknown): s is string => typeof s === 'string' && /^[0-9a-f]{64}$/.test(s);

export function isCsrfTokenFor(session: string, candidate: unknown, pepper: string): boolean {
  return isHex64(candidate) && hashesEqual(candidate, csrfTokenFor(session, pepper));
}

export function isSwitchTokenFor(session: string, subscription: string, plan: string, prorationDate: number, candidate: unknown, pepper: string): boolean {
  return isHex64(candidate) && hashesEqual(candidate, switchTokenFor(session, subscription, plan, prorationDate, pepper));
}
