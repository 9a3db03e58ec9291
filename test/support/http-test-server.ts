import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface HttpTestServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type TestHandler = (
  request: RecordedRequest,
  response: http.ServerResponse,
  raw: http.IncomingMessage,
) => void | Promise<void>;

/** A loopback HTTP server on a free port that records every request before handing it to `handler`. */
export const startHttpTestServer = async (handler: TestHandler): Promise<HttpTestServer> => {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((raw, response) => {
    const chunks: Buffer[] = [];
    raw.on('data', (chunk: Buffer) => chunks.push(chunk));
    raw.on('end', () => {
      const recorded = {
        method: raw.method ?? '',
        url: raw.url ?? '',
        headers: raw.headers,
        body: Buffer.concat(chunks).toString(),
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, response, raw)).catch((error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** Sends `body` as JSON with the given status. */
export const sendJson = (response: http.ServerResponse, status: number, body: unknown): void => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};
