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

// Stopping ends the process by letting its event loop run dry, not with process.exit(): pino writes stdout
// asynchronously and, on exit, flushes what is still queued with a synchronous loop that retries a failed
// write every 100 ms forever (sonic-boom 4.2 flushSync). When the launcher is gone, stdout is a pipe nobody
// reads, every write fails with EPIPE, and an exit right after logging hung in that loop for good, deaf to
// any further SIGTERM. A natural exit happens only after the queued writes have failed or landed.
let stopping = false;
function stop(reason: string): void {
  if (stopping) return;
  stopping = true;
  log.info({ reason }, 'gateway sandbox stopping');
  sandbox.close(); // releases never-answered requests (tok_timeout), sleeps and pending callbacks first
  server.close(() => log.info('gateway sandbox stopped'));
  server.closeIdleConnections(); // keep-alive sockets with no request in flight
  // Connections still busy after a grace period are cut rather than holding the process.
  setTimeout(() => server.closeAllConnections(), 2000).unref();
  // The IPC channel to the launcher would keep the event loop alive.
  if (process.connected) process.disconnect();
  // Should some handle still hold the loop, exit anyway, well within the 5 s a launcher (or an operator)
  // gives a stopping process; by then the log writes above have long settled.
  setTimeout(() => process.exit(0), 4000).unref();
}
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
// Forked by a launcher (npm run dev, the tests): when it dies, even by SIGKILL, the IPC channel closes.
// Stop then, rather than live on as an orphan that keeps the port.
process.on('disconnect', () => stop('launcher gone (IPC channel closed)'));
