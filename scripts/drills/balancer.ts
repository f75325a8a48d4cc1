import net from 'node:net';

// One port in front of several API processes, as the compose stack's nginx (deploy/nginx.conf) puts its
// replicas: each new connection goes to the next upstream in turn. An upstream that refuses the connection
// is skipped for the next one (nothing of the request was sent yet, so this is safe for a POST too); once a
// connection is made, its bytes are never sent elsewhere.

export interface Balancer {
  port: number;
  url: string;
  /** Connections handed to each upstream port. */
  counts: Map<number, number>;
  close(): Promise<void>;
}

export async function roundRobin(upstreams: number[]): Promise<Balancer> {
  let next = 0;
  const counts = new Map(upstreams.map((p) => [p, 0]));
  const open = new Set<net.Socket>();
  const connect = (client: net.Socket, tries: number) => {
    const port = upstreams[next++ % upstreams.length]!;
    const upstream = net.connect(port, '127.0.0.1');
    open.add(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      counts.set(port, (counts.get(port) ?? 0) + 1);
      client.pipe(upstream).pipe(client);
      client.resume();
    });
    upstream.on('error', () => {
      if (!connected && tries + 1 < upstreams.length) return connect(client, tries + 1);
      client.destroy();
    });
    upstream.on('close', () => (open.delete(upstream), client.destroy()));
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
  };
  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    connect(client, 0);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((r) => {
        for (const s of open) s.destroy();
        server.close(() => r());
      }),
  };
}
