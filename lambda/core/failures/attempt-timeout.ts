/**
 * Which limit of an attempt ran out (docs/configuration.md#timeouts): the connection, the first
 * byte, the whole answer, or (after a stream's commit) the silence between two events. The ledger
 * shows it as `timeoutPhase` on a `timeout` attempt line.
 */
export type TimeoutPhase = 'connect' | 'first_byte' | 'total' | 'idle';

/**
 * The abort reason of an attempt whose time ran out (the router's timer, the only one an attempt
 * has, or the transport's connect limit). It is a `TimeoutError` DOMException like
 * `AbortSignal.timeout`'s, but its own class: a caller's `AbortSignal.timeout` is the caller
 * giving up (`cancelled`), while this one is the attempt's `timeout`.
 */
export class AttemptTimeout extends DOMException {
  /** The limit that ran out, in ms. */
  readonly timeoutMs: number;
  /** Which limit it was. */
  readonly phase: TimeoutPhase;
  /**
   * The caller's own `max_tokens` explains it (`explainedByOutput`): a total-phase timeout that
   * is not counted against the route. Default false.
   */
  readonly callerSized: boolean;

  constructor(timeoutMs: number, phase: TimeoutPhase = 'total', callerSized = false) {
    super(`${PHASE_WORDS[phase]} timed out after ${timeoutMs} ms`, 'TimeoutError');
    this.timeoutMs = timeoutMs;
    this.phase = phase;
    this.callerSized = callerSized;
  }
}

const PHASE_WORDS: Record<TimeoutPhase, string> = {
  connect: 'connect',
  first_byte: 'first byte',
  total: 'attempt',
  idle: 'stream idle',
};
