import { connect, type Socket } from 'node:net';
import { type ChildApp, startChildApp, stopChildApp } from '../support/child-app';
import { throwawayDatabase } from '../support/test-app';
import { waitFor } from '../support/wait-for';

// The app is a process of its own, compiled at start.
jest.setTimeout(120_000);

/** More connections at once than Node's default listen backlog (511) lets the kernel queue. */
const BURST = 800;

describe('A burst of connections at once (e2e, child process)', () => {
  let database: { url: string; drop: () => Promise<void> };
  let child: ChildApp | undefined;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    database = await throwawayDatabase();
    child = await startChildApp({ DATABASE_URL: database.url });
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    if (child) {
      child.process.kill('SIGCONT');
      await stopChildApp(child);
    }
    await database?.drop();
  });

  it('should keep an idle connection open longer than a load balancer or client keeps it (60 s)', async () => {
    const { port } = new URL((child as ChildApp).url);
    const socket = connect(Number(port), '127.0.0.1');
    sockets.push(socket);
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    socket.once('connect', () => socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
    await waitFor(() => text.includes('\r\n\r\n'), { what: 'the answer headers', intervalMs: 20 });

    // Node's default is 5 s: a client that reuses a connection as the server drops it gets a reset.
    const timeout = /^keep-alive: timeout=(\d+)/im.exec(text)?.[1];
    expect(Number(timeout)).toBeGreaterThan(60);
    socket.destroy();
  });

  it('should queue every connection of a burst while the process cannot accept, and answer each once it can', async () => {
    const app = child as ChildApp;
    const { port } = new URL(app.url);
    // A stopped process accepts nothing: what connects meanwhile waits in the kernel's queue of the listening socket.
    app.process.kill('SIGSTOP');
    let connected = 0;
    const answers = Array.from({ length: BURST }, () => {
      const socket = connect(Number(port), '127.0.0.1');
      sockets.push(socket);
      let text = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      socket.once('connect', () => {
        connected += 1;
        socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      });
      return new Promise<string>((resolve, reject) => {
        socket.once('error', reject);
        socket.once('close', () => resolve(text.split('\r\n')[0]));
      });
    });
    await waitFor(() => connected === BURST, { what: `all ${BURST} connections were queued`, intervalMs: 50 });

    app.process.kill('SIGCONT');

    expect(new Set(await Promise.all(answers))).toEqual(new Set(['HTTP/1.1 200 OK']));
  });
});
