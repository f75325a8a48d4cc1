import type { Config } from '../../platform/config';

/** The gateway sandbox as the customer's browser reaches it (card tokenization, 3DS pages). */
export function sandboxPublicUrl(config: Pick<Config, 'SANDBOX_PUBLIC_URL' | 'SANDBOX_URL'>): string {
  return (config.SANDBOX_PUBLIC_URL ?? config.SANDBOX_URL).replace(/\/+$/, '');
}
