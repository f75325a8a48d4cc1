// A real HTTP receiver on 127.0.0.1 for the webhook tests: records what arrives and answers as told.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  port: number;
  url(path?: string, host?: string): string;
  received: Received[];
  close(): Promise<void>;
}

/** `port` 0 takes a free one; a given port is listened on again (a receiver that comes back). */
export async function startReceiver(answer: (req: Received, res: ServerResponse) => void = (_r, res) => res.end('ok'), port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      answer(r, res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const listening = (server.address() as AddressInfo).port;
  return {
    port: listening,
    url: (path = '/hook', host = '127.0.0.1') => `http://${host}:${listening}${path}`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Receivers for one test file, all closed after each test. */
export function receiverPool() {
  let open: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(open.map((r) => r.close()));
    open = [];
  });
  return async (...args: Parameters<typeof startReceiver>): Promise<Receiver> => {
    const r = await startReceiver(...args);
    open.push(r);
    return r;
  };
}
