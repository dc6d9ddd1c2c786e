/**
 * The abort reason of an attempt whose deadline passed (the router's timer, the only one an
 * attempt has). It is a `TimeoutError` DOMException like `AbortSignal.timeout`'s, but its own
 * class: a caller's `AbortSignal.timeout` is the caller giving up (`cancelled`), while this one
 * is the attempt's `timeout`.
 */
export class AttemptTimeout extends DOMException {
  /** The attempt's time limit, in ms. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`attempt timed out after ${timeoutMs} ms`, 'TimeoutError');
    this.timeoutMs = timeoutMs;
  }
}
