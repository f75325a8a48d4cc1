import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createPayorchClient, unwrap } from '../../clients/typescript/src';
import { createShop } from './app';

// Runs the example shop against `npm run dev`:  npx tsx examples/merchant-backend/main.ts
// Then open http://localhost:4242, buy, and pay with 4242 4242 4242 4242.
//
// Configuration: PAYORCH_API_URL (default http://localhost:$PORT, else 3000), PAYORCH_SECRET_KEY,
// PAYORCH_PUBLISHABLE_KEY and PAYORCH_WEBHOOK_SIGNING_SECRET; without them, the demo tenant that
// `npm run dev` keeps in .data/ (its signing secret read with the dev admin token). SHOP_PORT (4242).

const DATA = process.env.DEV_DATA_DIR ? path.resolve(process.env.DEV_DATA_DIR) : path.join(__dirname, '..', '..', '.data');

function demoTenant(): { tenant: string; secretKey: string; publishableKey: string } {
  const file = path.join(DATA, 'demo-tenant.json');
  if (!existsSync(file))
    throw new Error(`no ${file}: start \`npm run dev\` first (with DEV_DATA_DIR set as it was for \`npm run dev\`), or set PAYORCH_SECRET_KEY and PAYORCH_PUBLISHABLE_KEY`);
  return JSON.parse(readFileSync(file, 'utf8'));
}

async function main() {
  // `npm run dev` listens on PORT (3000 unless set).
  const apiUrl = process.env.PAYORCH_API_URL ?? `http://localhost:${process.env.PORT || 3000}`;
  const port = Number(process.env.SHOP_PORT ?? 4242);
  const demo = process.env.PAYORCH_SECRET_KEY ? null : demoTenant();
  const secretKey = process.env.PAYORCH_SECRET_KEY ?? demo!.secretKey;
  const publishableKey = process.env.PAYORCH_PUBLISHABLE_KEY ?? demo!.publishableKey;

  let webhookSigningSecret = process.env.PAYORCH_WEBHOOK_SIGNING_SECRET;
  if (!webhookSigningSecret) {
    if (!demo) throw new Error('set PAYORCH_WEBHOOK_SIGNING_SECRET (whsec_...)');
    // npm run dev writes the admin token to .data/admin-token unless ADMIN_API_TOKEN is set.
    const adminToken = process.env.ADMIN_API_TOKEN ?? readFileSync(path.join(DATA, 'admin-token'), 'utf8').trim();
    const admin = createPayorchClient({ apiKey: adminToken, baseUrl: apiUrl });
    webhookSigningSecret = (await unwrap(admin.GET('/admin/tenants/{tenant}/webhook-signing-secret', { params: { path: { tenant: demo.tenant } } }))).secret;
  }

  const { app } = createShop({
    apiUrl,
    secretKey,
    publishableKey,
    webhookSigningSecret,
    endpointSecret: process.env.SHOP_WEBHOOK_SECRET ?? randomBytes(16).toString('hex'),
    publicUrl: process.env.SHOP_PUBLIC_URL ?? `http://localhost:${port}`,
  });
  app.listen(port, () => process.stdout.write(`example shop on http://localhost:${port} (API ${apiUrl})\n`));
}

main().catch((err) => {
  process.stderr.write(`example shop: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
