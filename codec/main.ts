import { oidcOperators } from '../platform/codec-oidc';
import { parseCodecOperators } from '../platform/codec-operators';
import { createLogger } from '../platform/logger';
import { parseCodecKeys, TenantPayloadCodec } from '../platform/payload-codec';
import { loadCodecConfig } from './config';
import { createCodecServer } from './server';

// `npm run start:codec`: the Temporal UI's codec server (codec/server.ts) on CODEC_SERVER_PORT.
function main() {
  let config;
  try {
    config = loadCodecConfig();
  } catch (err) {
    process.stderr.write(`codec server: ${(err as Error).message}\n`);
    process.exit(78);
  }
  const logger = createLogger({ name: 'codec', level: config.LOG_LEVEL });
  const app = createCodecServer({
    codec: new TenantPayloadCodec(parseCodecKeys(config.PAYLOAD_CODEC_KEYS)),
    operators: config.CODEC_OPERATORS ? parseCodecOperators(config.CODEC_OPERATORS) : [],
    ...(config.CODEC_OIDC_ISSUER && config.CODEC_OIDC_AUDIENCE
      ? {
          oidc: oidcOperators({
            issuer: config.CODEC_OIDC_ISSUER,
            audience: config.CODEC_OIDC_AUDIENCE,
            scopesClaim: config.CODEC_OIDC_SCOPES_CLAIM,
            ...(config.CODEC_OIDC_JWKS_URL ? { jwksUrl: config.CODEC_OIDC_JWKS_URL } : {}),
          }),
        }
      : {}),
    corsOrigins: config.CODEC_CORS_ORIGINS.split(',').map((s) => s.trim()).filter(Boolean),
    audit: (line) => logger.info(line, 'codec request'),
  });
  app.listen(config.CODEC_SERVER_PORT, config.HOST, () => logger.info({ port: config.CODEC_SERVER_PORT }, 'codec server listening'));
}

main();
