import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** While draining, sockets that went idle with keep-alive (a response begun before the drain) are closed this often. */
const IDLE_SWEEP_MS = 250;

/**
 * The HTTP side of a shutdown. Once `begin()` is called every response says `Connection: close` (also those of
 * requests already in flight whose head is not sent yet), so a client polling on a kept-alive socket is moved
 * off it after its next answer; idle kept-alive sockets are closed at once and while the drain lasts. At
 * `graceMs` the server stops listening and every connection still open is cut (a client that never finishes
 * its request, a stream that never ends), so the process exits within the grace period whatever clients do.
 */
export class HttpDrain {
  private readonly inFlight = new Set<ServerResponse>();
  private draining = false;

  constructor(private readonly server: Server) {
    // Before Express sees the request, so that every response of the drain can be told to close its socket.
    server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
      if (this.draining) {
        response.setHeader('Connection', 'close');
        return;
      }
      this.inFlight.add(response);
      response.once('close', () => this.inFlight.delete(response));
    });
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Starts the drain; resolves nothing, it runs beside the app's own shutdown hooks. */
  begin(graceMs: number): void {
    if (this.draining) return;
    this.draining = true;
    for (const response of this.inFlight) {
      if (!response.headersSent) response.setHeader('Connection', 'close');
    }
    this.inFlight.clear();
    this.server.closeIdleConnections();
    const sweep = setInterval(() => this.server.closeIdleConnections(), IDLE_SWEEP_MS).unref();
    setTimeout(() => {
      clearInterval(sweep);
      // Stops listening (a later close by Nest finds it closed and resolves) and cuts whatever is left.
      if (this.server.listening) this.server.close();
      this.server.closeAllConnections();
    }, graceMs).unref();
  }
}
