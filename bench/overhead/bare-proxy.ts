/**
 * The floor for any Node.js gateway: a pass-through proxy in a few lines of `node:http` with a
 * keep-alive agent and no logic at all. Whatever a gateway adds beyond this is its own cost.
 */
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running bare proxy. */
export interface BareProxy {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 that forwards every request, as is, to `upstreamPort`. */
export async function startBareProxy(upstreamPort: number, port = 0): Promise<BareProxy> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const server = createServer((req, res) => {
    const upstream = request(
      {
        host: '127.0.0.1',
        port: upstreamPort,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
