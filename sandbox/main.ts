// Process entry of the gateway sandbox: `npm run start:sandbox`.

import type { AddressInfo } from 'node:net';
import { createLogger } from '../platform/logger';
import { createSandboxApp } from './app';
import { loadSandboxConfig, SandboxConfigError, type SandboxConfig } from './config';

function configOrExit(): SandboxConfig {
  try {
    return loadSandboxConfig();
  } catch (err) {
    if (err instanceof SandboxConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}

const config = configOrExit();
const log = createLogger({ name: 'gateway-sandbox', level: config.logLevel });

const sandbox = createSandboxApp({
  callbackSecret: config.callbackSecret,
  publicUrl: config.publicUrl,
  latencyMs: config.latencyMs,
  failureRate: config.failureRate,
  log,
});

const server = sandbox.app.listen(config.port, config.host, () => {
  const { port } = server.address() as AddressInfo;
  log.info(
    { host: config.host, port, publicUrl: config.publicUrl, latencyMs: config.latencyMs, failureRate: config.failureRate },
    'gateway sandbox listening (state is in memory only)',
  );
});
server.on('error', (err) => {
  log.fatal({ err }, 'gateway sandbox failed to listen');
  process.exit(1);
});

let stopping = false;
function stop(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'gateway sandbox stopping');
  sandbox.close(); // releases never-answered requests and pending callbacks first
  server.close(() => {
    log.info('gateway sandbox stopped');
    process.exit(0);
  });
  server.closeIdleConnections();
  // Connections still busy after a grace period are cut rather than holding the process.
  setTimeout(() => {
    server.closeAllConnections();
  }, 3000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
