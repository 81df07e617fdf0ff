// TCP helpers for the "store unavailable" tests: a proxy that can be stopped (every connection cut,
// port closed) and started again on the same port, or frozen (connections stay open and silent, as
// behind a NAT that dropped them); a server that accepts and never answers; a port nobody listens on.
import net from "node:net";

export interface TcpProxy {
  port: number;
  /** Cuts every connection and closes the port. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Existing connections go silent for good (open, nothing forwarded); new ones too while frozen. */
  freeze(): void;
  /** New connections are forwarded again; the ones silenced by freeze() stay silent. */
  thaw(): void;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const live = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let frozen = false;
  let server: net.Server | undefined;
  let port = 0;

  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };

  const silence = (pair: { client: net.Socket; upstream: net.Socket }) => {
    pair.client.unpipe(pair.upstream);
    pair.upstream.unpipe(pair.client);
    pair.client.pause();
    pair.upstream.pause();
    live.delete(pair);
  };

  const start = async () => {
    server = net.createServer((client) => {
      track(client);
      if (frozen) return client.pause(); // accepted, never answered
      const upstream = net.connect(target.port, target.host);
      track(upstream);
      const pair = { client, upstream };
      live.add(pair);
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server!.once("error", reject);
      server!.listen(port, "127.0.0.1", () => resolve());
    });
    port = (server.address() as net.AddressInfo).port;
  };

  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    live.clear();
    const current = server;
    server = undefined;
    if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
  };

  await start();
  return {
    get port() {
      return port;
    },
    stop,
    start,
    freeze() {
      frozen = true;
      for (const pair of [...live]) silence(pair);
    },
    thaw() {
      frozen = false;
    },
  };
}

/** Accepts connections and never sends a byte. */
export async function startBlackHole(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port that was free a moment ago: connecting to it is refused. */
export async function findClosedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
