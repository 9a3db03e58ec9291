import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 the test can cut and restore, so that an outage of the server behind it
 * is real for the client (its connections drop, new ones are closed at once) without stopping that server.
 */
export class TcpProxy {
  /** Connections accepted and closed at once while cut: each is a client trying to reach the server. */
  refused = 0;
  private cut = false;
  private hung = false;
  private readonly sockets = new Set<Socket>();
  /** Where each open socket forwards to. */
  private readonly forwards = new Map<Socket, Socket>();

  private constructor(
    private readonly server: Server,
    private readonly target: { host: string; port: number },
  ) {
    server.on('connection', (client) => this.accept(client));
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(createServer(), target);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Drops every open connection; until `restore()`, new ones are closed as soon as they open. */
  cutOff(): void {
    this.cut = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    this.forwards.clear();
  }

  restore(): void {
    this.cut = false;
    if (!this.hung) return;
    this.hung = false;
    for (const [from, to] of this.forwards) from.pipe(to);
  }

  /**
   * Stops forwarding in both directions while keeping every connection open, and accepts new ones that then get
   * nothing: the server behind looks hung (a SIGSTOP'd process) until `restore()`.
   */
  hang(): void {
    this.hung = true;
    for (const [from, to] of this.forwards) {
      from.unpipe(to);
      from.pause();
    }
  }

  async close(): Promise<void> {
    this.cutOff();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.cut) {
      this.refused += 1;
      client.destroy();
      return;
    }
    const upstream = createConnection(this.target);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      this.sockets.add(from);
      this.forwards.set(from, to);
      if (this.hung) from.pause();
      else from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        this.sockets.delete(from);
        this.forwards.delete(from);
        to.destroy();
      });
    }
  }
}
