/**
 * The handle every fake upstream returns, whichever provider it imitates.
 */
import type { ReceivedRequest } from './fake-script.js';
import type { Fault, FaultHook } from './fault.js';

/** Where a fake listens, and how much it remembers. */
export interface FakeUpstreamOptions {
  /** TCP port. Default 0 (a free port chosen by the OS; read it from `FakeUpstream.port`). */
  port?: number | undefined;
  /** Interface to bind. Default `127.0.0.1`. */
  host?: string | undefined;
  /** The request log keeps at least this many most recent requests. Default 100000. */
  logLimit?: number | undefined;
}

/**
 * A running fake upstream. The same controls are reachable over HTTP while it runs
 * (`POST /_fake/script`, `POST /_fake/default`, `GET /_fake/requests`, `POST /_fake/reset`, at the
 * server root, not under `url`'s path).
 */
export interface FakeUpstream {
  /** Base URL for a client: OpenAI fake `http://127.0.0.1:<port>/v1`; Bedrock fake `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The port actually bound. */
  readonly port: number;
  /**
   * Appends faults to the model's FIFO queue; each request for the model consumes one. Throws
   * `InvalidFaultError` on a fault that does not match the schema.
   */
  script(model: string, faults: Fault[]): void;
  /** The fault used when the model's queue is empty and the hook says nothing; `'*'` = every model. */
  setDefault(model: string | '*', fault: Fault): void;
  /** Custom behaviour after the queue and before the defaults; `undefined` removes it. */
  onRequest(fn: FaultHook | undefined): void;
  /** Every request received since the last reset, oldest first (a live view). */
  readonly requests: ReadonlyArray<ReceivedRequest>;
  /** The received requests for one model, oldest first. */
  requestsFor(model: string): ReceivedRequest[];
  /** Provider requests (not control calls) being answered right now. */
  readonly inFlight: number;
  /** The most provider requests answered at once since the start or the last reset. */
  readonly inFlightPeak: number;
  /** Clears queues, defaults, the hook, counters and the log; the in-flight peak starts again from now. */
  reset(): void;
  /** Stops listening and destroys every connection, hanging requests included. Idempotent. */
  close(): Promise<void>;
}
