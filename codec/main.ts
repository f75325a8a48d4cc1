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
    operators: parseCodecOperators(config.CODEC_OPERATORS),
    corsOrigins: config.CODEC_CORS_ORIGINS.split(',').map((s) => s.trim()).filter(Boolean),
    audit: (line) => logger.info(line, 'codec request'),
  });
  app.listen(config.CODEC_SERVER_PORT, config.HOST, () => logger.info({ port: config.CODEC_SERVER_PORT }, 'codec server listening'));
}

main();
