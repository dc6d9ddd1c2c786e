import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { SwitchyardError } from '../core/errors.js';

export interface RunningServer {
  /** e.g. `http://127.0.0.1:8787` */
  url: string;
  port: number;
  /**
   * Stops accepting connections, lets in-flight requests finish, and closes idle keep-alive
   * connections. Resolves when every connection is gone, or after `graceMs` when it cuts the rest.
   */
  close(graceMs?: number): Promise<void>;
}

/** Serves the HTTP app (anything that answers a web `Request`) on node:http. Port 0 picks a free port. */
export async function startServer(
  app: { fetch(request: Request): Response | Promise<Response> },
  options: { port: number; host: string },
): Promise<RunningServer> {
  const server = createAdaptorServer({ fetch: app.fetch, hostname: options.host }) as Server;
  // A request that is still streaming keeps its socket; only idle sockets are closed on shutdown.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const why =
        error.code === 'EADDRINUSE'
          ? `port ${options.port} on ${options.host} is already in use (choose another with --port)`
          : error.code === 'EACCES'
            ? `not allowed to listen on ${options.host}:${options.port}`
            : `cannot listen on ${options.host}:${options.port}: ${error.message}`;
      reject(new SwitchyardError(why, { cause: error }));
    };
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    close(graceMs = 10_000) {
      closing ??= new Promise<void>((resolve) => {
        // A keep-alive socket turns idle when its in-flight response ends: close those as they appear.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const cut = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearInterval(sweep);
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
