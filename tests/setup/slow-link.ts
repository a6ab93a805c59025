import net from 'node:net';

/**
 * A TCP relay to the database at `databaseUrl` that holds back every byte the server sends for `delayMs` (in order),
 * as a process far from its database sees it: its queries' answers and its notifications arrive that much later.
 * `url` is `databaseUrl` through the relay; `close` ends the relay and its connections. `hold(true)` makes the
 * connections open then go silent (what the server sends is lost, nothing is closed: a peer that vanished);
 * `hold(false)` lets connections made afterwards through again.
 */
export async function startSlowLink(
  databaseUrl: string,
  delayMs: number,
): Promise<{ url: string; close: () => Promise<void>; hold: (silent: boolean) => void }> {
  const target = new URL(databaseUrl);
  const sockets = new Set<net.Socket>();
  let silent = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (bytes) => upstream.write(bytes));
    client.on('end', () => upstream.end());
    // Connections open while the link is silent stay silent (their byte stream is broken from there on).
    let lost = false;
    // Timers of one duration fire in the order they were set: the bytes arrive in the order they were sent.
    upstream.on('data', (bytes) => {
      lost ||= silent;
      if (!lost) setTimeout(() => client.writable && client.write(bytes), delayMs);
    });
    upstream.on('end', () => setTimeout(() => client.end(), delayMs));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    hold: (value) => {
      silent = value;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
