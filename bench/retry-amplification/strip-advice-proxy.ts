/**
 * A loopback pass-through that drops the retry advice headers (`x-should-retry`, `retry-after-ms`)
 * from every answer: the gateway's wire as it was before the advice (docs/http-api.md#retry-advice).
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

const ADVICE = new Set(['x-should-retry', 'retry-after-ms']);

/** A running stripping proxy: its base URL (`http://127.0.0.1:<port>`) and how to stop it. */
export interface StrippingProxy {
  url: string;
  close(): Promise<void>;
}

/** Starts a pass-through to `target` (a base URL) on an ephemeral loopback port. */
export async function startStrippingProxy(target: string): Promise<StrippingProxy> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const out = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        const headers = Object.fromEntries(Object.entries(answer.headers).filter(([k]) => !ADVICE.has(k)));
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
