/**
 * The scripting state shared by every fake upstream: which fault answers the next request for a
 * model, and the log of what was received.
 */
import { type Fault, type FaultHook, parseFault } from './fault.js';

/** One request a fake received. Fields update while the exchange is in flight (`aborted`, `answeredStatus`). */
export interface ReceivedRequest {
  /** 0-based arrival order over the whole fake since the last reset. */
  readonly seq: number;
  /** Model id as the client sent it (Bedrock: URL-decoded from the path). */
  readonly model: string;
  readonly stream: boolean;
  /** Arrival time, epoch ms. */
  readonly at: number;
  /** The fault that was applied. */
  readonly fault: Fault;
  /** True when the client closed the connection before the response ended. */
  readonly aborted: boolean;
  /** HTTP status written in the response headers; `null` while none was (hang, reset, latency). */
  readonly answeredStatus: number | null;
  /** OpenAI fake: the request's messages as role and text, so a test can see what was sent. */
  readonly messages?: ReadonlyArray<{ role: string; text: string }> | undefined;
  /** OpenAI fake: the request's `response_format`, when it had one. */
  readonly responseFormat?: { type: string } | undefined;
  /** The request body as parsed (every fake), so a test can check exactly what a gateway sent. */
  readonly body?: unknown;
  /** The request path, where the fake serves more than one for a model (Anthropic's `count_tokens`). */
  readonly path?: string | undefined;
}

/** The servers' writable view of a {@link ReceivedRequest}. */
export type RequestRecord = { -readonly [K in keyof ReceivedRequest]: ReceivedRequest[K] };

/** Options of {@link FakeScript}. */
export interface FakeScriptOptions {
  /**
   * The log keeps at least this many most recent requests (older ones are dropped in batches so
   * that long benchmark runs stay bounded). Default 100000.
   */
  logLimit?: number | undefined;
}

const EMPTY_FAULT: Fault = Object.freeze({});

/**
 * Per model: a FIFO queue of faults consumed one per request, then the `onRequest` hook, then the
 * model's default, then the global default (`'*'`), then `{}`.
 */
export class FakeScript {
  readonly #queues = new Map<string, Fault[]>();
  readonly #defaults = new Map<string, Fault>();
  readonly #counts = new Map<string, number>();
  readonly #log: RequestRecord[] = [];
  readonly #logLimit: number;
  #hook: FaultHook | undefined;
  #seq = 0;

  constructor(options: FakeScriptOptions = {}) {
    this.#logLimit = options.logLimit ?? 100_000;
  }

  /** Appends faults to the model's queue. Throws `InvalidFaultError` on an invalid fault (validated here, not per request). */
  script(model: string, faults: readonly Fault[]): void {
    const parsed = faults.map((fault) => parseFault(fault));
    const queue = this.#queues.get(model);
    if (queue) queue.push(...parsed);
    else this.#queues.set(model, parsed);
  }

  /** Sets the fault used when the model's queue is empty; `'*'` sets the global default. */
  setDefault(model: string, fault: Fault): void {
    this.#defaults.set(model, parseFault(fault));
  }

  /** Installs (or with `undefined` removes) the hook consulted after the queue. */
  onRequest(fn: FaultHook | undefined): void {
    this.#hook = fn;
  }

  /** Picks the fault for a new request and records it in the log. */
  take(model: string, stream: boolean): RequestRecord {
    const requestIndex = this.#counts.get(model) ?? 0;
    this.#counts.set(model, requestIndex + 1);
    const fault =
      this.#queues.get(model)?.shift() ??
      this.#hook?.(model, requestIndex) ??
      this.#defaults.get(model) ??
      this.#defaults.get('*') ??
      EMPTY_FAULT;
    const record: RequestRecord = {
      seq: this.#seq++,
      model,
      stream,
      at: Date.now(),
      fault,
      aborted: false,
      answeredStatus: null,
    };
    // Dropping in batches keeps the amortised cost O(1) per request.
    if (this.#log.length >= this.#logLimit * 2) this.#log.splice(0, this.#log.length - this.#logLimit);
    this.#log.push(record);
    return record;
  }

  /** The log, oldest first. A live view: records update while requests are in flight. */
  get requests(): ReadonlyArray<ReceivedRequest> {
    return this.#log;
  }

  /** The logged requests for one model, oldest first. */
  requestsFor(model: string): ReceivedRequest[] {
    return this.#log.filter((r) => r.model === model);
  }

  /** Number of scripted faults still queued, per model. */
  pending(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [model, queue] of this.#queues) if (queue.length > 0) out[model] = queue.length;
    return out;
  }

  /** Models that were scripted, given a default, or requested (for `GET /v1/models`). */
  knownModels(): string[] {
    const models = new Set<string>([
      ...this.#queues.keys(),
      ...this.#defaults.keys(),
      ...this.#counts.keys(),
    ]);
    models.delete('*');
    return [...models].sort();
  }

  /** Back to a pristine state: queues, defaults, hook, counters and log (cleared in place). */
  reset(): void {
    this.#queues.clear();
    this.#defaults.clear();
    this.#counts.clear();
    this.#log.length = 0;
    this.#hook = undefined;
    this.#seq = 0;
  }
}
