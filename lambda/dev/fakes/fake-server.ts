/**
 * The `node:http` plumbing shared by the fakes: listening, the control surface, error fallback
 * and a shutdown that never leaks a handle.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTROL_PREFIX, handleControl } from './control-routes.js';
import { Exchange } from './exchange.js';
import { FakeScript } from './fake-script.js';
import type { FakeUpstream, FakeUpstreamOptions } from './fake-upstream.js';

/** Serves one provider request; faults come from `script`. */
export type ProviderHandler = (ex: Exchange, script: FakeScript) => Promise<void>;

/** What a provider fake plugs into {@link startFakeServer}. */
export interface FakeServerSpec {
  /** Appended to the origin to make `FakeUpstream.url`: `/v1` for OpenAI, `''` for Bedrock. */
  basePath: string;
  handle: ProviderHandler;
}

/** Starts a fake upstream server and returns its handle once it listens. */
export async function startFakeServer(
  spec: FakeServerSpec,
  options: FakeUpstreamOptions = {},
): Promise<FakeUpstream> {
  const script = new FakeScript({ logLimit: options.logLimit });
  let shuttingDown = false;
  // Provider requests being answered right now, and the most at once since the last reset.
  let inFlight = 0;
  let inFlightPeak = 0;
  const server = createServer((req, res) => {
    const ex = new Exchange(req, res, () => shuttingDown);
    const control = ex.path.startsWith(CONTROL_PREFIX);
    if (!control) {
      inFlight += 1;
      inFlightPeak = Math.max(inFlightPeak, inFlight);
      res.once('close', () => {
        inFlight -= 1;
      });
    }
    const work = control ? handleControl(ex, script) : spec.handle(ex, script);
    work.catch(() => ex.fail());
  });
  // Keep idle keep-alive sockets a little longer than undici's default (4 s), so that clients
  // reuse them instead of racing the server's close.
  server.keepAliveTimeout = 10_000;

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}${spec.basePath}`,
    port,
    script: (model, faults) => script.script(model, faults),
    setDefault: (model, fault) => script.setDefault(model, fault),
    onRequest: (fn) => script.onRequest(fn),
    get requests() {
      return script.requests;
    },
    requestsFor: (model) => script.requestsFor(model),
    get inFlight() {
      return inFlight;
    },
    get inFlightPeak() {
      return inFlightPeak;
    },
    reset: () => {
      script.reset();
      inFlightPeak = inFlight;
    },
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        shuttingDown = true;
        server.close((err) => (err ? reject(err) : resolve()));
        // Hanging requests and keep-alive sockets would otherwise hold close() open forever.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
