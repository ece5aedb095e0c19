/**
 * A TCP proxy on 127.0.0.1 that a test controls, for partitions between a replica and its Redis:
 * `silence()` stops forwarding in both directions without closing any socket (what a dropped route or a
 * stateful firewall does: the client's writes are accepted and nothing ever comes back), new connections
 * included. A close on one side is not passed on while silent either: a dropped route carries no FIN
 * or RST, so Redis closing an idle connection leaves the client waiting, and a client giving up leaves
 * Redis holding the connection. `heal()` forwards again, what was sent meanwhile is lost, and a pair
 * with one side closed meanwhile is closed, as the next packet's reset would.
 */
import net from "node:net";

/** A running proxy. */
export interface TcpProxy {
  /** `redis://127.0.0.1:<port>` style address of the proxy's side. */
  readonly port: number;
  /** Stops forwarding without closing sockets (see the file's comment). */
  silence(): void;
  /** Forwards again. */
  heal(): void;
  /** Closes every socket and the listener. */
  close(): Promise<void>;
}

/** Starts a proxy to `127.0.0.1:targetPort`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, "127.0.0.1");
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    for (const socket of pair) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => {
        sockets.delete(socket);
        if (silent) return;
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      });
    }
    // Read and dropped while silent: neither side sees an error, an end or a reply.
    client.on("data", (chunk: Buffer) => {
      if (!silent) upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!silent) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    silence: () => {
      silent = true;
    },
    heal: () => {
      silent = false;
      for (const pair of pairs)
        if (pair.some((socket) => socket.destroyed)) {
          pairs.delete(pair);
          for (const socket of pair) socket.destroy();
        }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
