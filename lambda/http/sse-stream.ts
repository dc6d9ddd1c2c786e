import type { Usage } from '../core/chat/chat-model.js';
import { AttemptTimeout } from '../core/failures/attempt-timeout.js';
import { ProviderError } from '../core/failures/provider-error.js';
import { addUsage } from '../core/ledger/cost.js';
import { interruptedUsage } from '../core/ledger/interrupted-usage.js';
import type { CommittedStream } from '../core/router/route-chat.js';
import type { RouteSuccess } from '../core/router/route-types.js';
import { createSeam } from '../core/router/stream-seam.js';
import { eventText, heldText } from './sse-event-text.js';
import type { SseOptions, SseState, Step } from './sse-state.js';
import { asProviderError, silenceError } from './stream-failures.js';

export type { SseOptions, StreamFormat } from './sse-state.js';

const encoder = new TextEncoder();

/**
 * The committed stream as server-sent events in the caller's format. Nothing is replayed or
 * spliced after the commit: an upstream failure ends the stream with an explicit error event
 * (and no clean end), and the request is settled as `partial`; a caller that disconnects aborts
 * the upstream call. Events the upstream delivered together leave together, in one write.
 */
export function sseBody(
  route: RouteSuccess<CommittedStream>,
  options: SseOptions,
): ReadableStream<Uint8Array> {
  const state: SseState = {
    route,
    options,
    usage: undefined,
    finished: false,
    pending: undefined,
    outputChars: 0,
    text: '',
    toolCall: false,
    seam: undefined,
    billed: undefined,
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(options.format.start() + eventText(state, route.value.first)));
    },
    pull: (controller) => pullBatch(state, controller),
    cancel: () => cancelled(state),
  });
}

/**
 * Waits for the upstream's next event. An upstream that goes silent mid-stream must not hold the
 * caller forever: the route's `timeouts.idleMs` bounds the wait for each event. This is the only
 * timer after the commit, and a different one from the attempt's: the router stopped the attempt
 * timer at the first event (a committed stream may rightly outlast it) and the adapter has none,
 * so silence, not total length, is what ends a committed stream. It ends it through the caller's
 * signal, so the ledger settles the attempt as a `timeout` after output (`partial`).
 */
async function nextStep(state: SseState): Promise<Step> {
  const { route } = state;
  let silent = false;
  const idle = setTimeout(() => {
    silent = true;
    // The attempt alone ends (a continuation may follow); an answer without one ends the caller's call.
    if (route.stop) route.stop(new AttemptTimeout(route.idleMs, 'idle'));
    else state.options.abortCaller();
  }, route.idleMs);
  try {
    const next = await route.value.rest.next();
    return next.done ? { kind: 'done' } : { kind: 'event', event: next.value };
  } catch (error) {
    return { kind: 'error', error: silent ? silenceError(route, route.idleMs, error) : error };
  } finally {
    clearTimeout(idle);
  }
}

/** The end of the current turn of the event loop, one promise (and one `setImmediate`) for every wait in that turn. */
let turnEnd: Promise<undefined> | undefined;
const nextTurn = (): Promise<undefined> => {
  turnEnd ??= new Promise<undefined>((resolve) =>
    setImmediate(() => {
      turnEnd = undefined;
      resolve(undefined);
    }),
  );
  return turnEnd;
};

/**
 * The next step if it is already at hand (the upstream delivered it with the previous one), else
 * undefined after this turn of the event loop; the wait then carries over to the next `pull`.
 */
async function stepAtHand(state: SseState): Promise<Step | undefined> {
  state.pending ??= nextStep(state);
  const step = await Promise.race([state.pending, nextTurn()]);
  if (step !== undefined) state.pending = undefined;
  return step;
}

/** Writes every event at hand in one piece; ends the stream at its end or failure. */
async function pullBatch(state: SseState, controller: ReadableStreamDefaultController<Uint8Array>) {
  if (state.finished) return;
  state.pending ??= nextStep(state);
  let step: Step | undefined = await state.pending;
  state.pending = undefined;
  let text = '';
  while (step?.kind === 'event') {
    text += eventText(state, step.event);
    step = await stepAtHand(state);
  }
  if (step === undefined) return controller.enqueue(encoder.encode(text));
  state.finished = true;
  if (step.kind === 'done') return completed(state, controller, text);
  if (text !== '') controller.enqueue(encoder.encode(text));
  await failed(state, step.error, controller);
  // Continued: a pull that enqueued nothing is not called again, so this one reads on.
  if (!state.finished) await pullBatch(state, controller);
}

/** The caller's usage of the whole answer: the broken attempts' and the last one's. */
const answerUsage = (state: SseState) => (state.billed ? addUsage(state.billed, state.usage) : state.usage);

/**
 * The clean end in the caller's format, and the request settled. The caller gets the last event at
 * once; the stream closes only after the settlement's writes (breaker sample, cooling), because
 * the end of the response is when Lambda may freeze the container: a write still under way then
 * would stall until the next invocation, and time out there.
 */
async function completed(
  state: SseState,
  controller: ReadableStreamDefaultController<Uint8Array>,
  text: string,
) {
  controller.enqueue(encoder.encode(text + heldText(state) + state.options.format.end(answerUsage(state))));
  await state.route.settle({ usage: state.usage });
  try {
    controller.close();
  } catch {
    // the caller went away during the settlement; the ledger has the story
  }
}

/** The caller went away: the upstream call is aborted and the request settled as cancelled. */
async function cancelled(state: SseState) {
  if (state.finished) return;
  state.finished = true;
  state.options.abortCaller();
  await state.route.value.rest.return?.().catch(() => undefined);
  const { route } = state;
  await failed(
    state,
    new ProviderError({
      provider: route.provider,
      model: route.model,
      failureClass: 'cancelled',
      message: 'the caller went away',
    }),
  );
}

/**
 * Settles the request with the failure and, unless the caller is gone, ends the stream with an
 * explicit error event (no clean end). A stream that ended before its upstream reported usage is
 * billed for the prompt and for what the caller received (`interruptedUsage`). When the route may
 * resume (the pipeline continues after output), a continuation is asked for first: if one
 * commits, the stream goes on from it and no error is written.
 */
async function failed(
  state: SseState,
  error: unknown,
  controller?: ReadableStreamDefaultController<Uint8Array>,
) {
  const { route } = state;
  const failure = asProviderError(route, error);
  const usageEstimated = state.usage === undefined;
  const usage =
    state.usage ??
    interruptedUsage({
      reportedInputTokens: failure.reportedInputTokens,
      promptEstimate: route.value.promptTokens,
      outputChars: state.outputChars,
    });
  if (controller && route.resume && failure.failureClass !== 'cancelled') {
    const held = heldText(state);
    if (held !== '') controller.enqueue(encoder.encode(held));
    const next = await route.resume({
      error: failure,
      usage,
      usageEstimated,
      text: state.text,
      toolCall: state.toolCall,
    });
    if (next) return continueWith(state, next, usage, controller);
  } else await route.settle({ error: failure, usage, usageEstimated });
  if (!controller || failure.failureClass === 'cancelled') return;
  try {
    const message = `upstream stream from '${route.model}' failed after output started: ${failure.message}`;
    controller.enqueue(encoder.encode(state.options.format.error(message, failure)));
    controller.close();
  } catch {
    // the caller is already gone; the ledger has the story
  }
}

/**
 * The stream goes on from a committed continuation: the broken attempt's usage is kept for the
 * caller's usage chunk, the seam checks the continuation's first characters against what the
 * caller has, the format is told the label, and the continuation's first event goes out.
 */
function continueWith(
  state: SseState,
  next: RouteSuccess<CommittedStream>,
  brokenUsage: Usage,
  controller: ReadableStreamDefaultController<Uint8Array>,
) {
  state.billed = addUsage(state.billed ?? { inputTokens: 0, outputTokens: 0 }, brokenUsage);
  state.route = next;
  state.usage = undefined;
  state.outputChars = 0;
  state.finished = false;
  state.seam = createSeam(state.text);
  if (next.continued) state.options.format.continuedBy?.(next.continued);
  const text = eventText(state, next.value.first);
  if (text !== '') controller.enqueue(encoder.encode(text));
}
