/**
 * One attempt's abort signal: the caller's signal plus the attempt timeout. Adapters pass
 * `signal` to the SDK so that either source cancels the upstream request, and read `timedOut`
 * afterwards to tell our own timeout apart from the caller going away.
 */
export interface AttemptSignal {
  /** Aborts when the caller's signal aborts or the attempt timer fires. */
  readonly signal: AbortSignal;
  /** True once the attempt timer fired (the caller's signal may still be live). */
  readonly timedOut: boolean;
  /**
   * Stops the timer without aborting. Streams call it at the first chunk: the timeout bounds
   * the time to first output, after which the caller's signal alone governs the stream.
   */
  stopTimer(): void;
  /**
   * Releases the timer and the listener on the caller's signal. With `abortInFlight` the
   * upstream request is aborted too (a consumer that stops reading a stream early); a call that
   * completed normally passes `false` so that keep-alive sockets are not destroyed.
   */
  dispose(abortInFlight: boolean): void;
}

/**
 * Links the caller's `signal` with a timer of `timeoutMs` milliseconds. The caller's abort
 * reason is forwarded; the timer aborts with a `TimeoutError` DOMException.
 */
export function createAttemptSignal(callerSignal: AbortSignal, timeoutMs: number): AttemptSignal {
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const onCallerAbort = (): void => controller.abort(callerSignal.reason);
  const stopTimer = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };

  if (callerSignal.aborted) {
    controller.abort(callerSignal.reason);
  } else {
    callerSignal.addEventListener('abort', onCallerAbort, { once: true });
    timer = setTimeout(
      () => {
        timedOut = true;
        controller.abort(new DOMException(`attempt timed out after ${timeoutMs} ms`, 'TimeoutError'));
      },
      Math.max(0, timeoutMs),
    );
  }

  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    stopTimer,
    dispose(abortInFlight) {
      stopTimer();
      callerSignal.removeEventListener('abort', onCallerAbort);
      if (abortInFlight && !controller.signal.aborted)
        controller.abort(new DOMException('released', 'AbortError'));
    },
  };
}
