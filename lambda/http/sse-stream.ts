import type { ChatStreamEvent, Usage } from '../core/chat/chat-model.js';
import { AttemptTimeout } from '../core/failures/attempt-timeout.js';
import { ProviderError } from '../core/failures/provider-error.js';
import { addUsage } from '../core/ledger/cost.js';
import { interruptedUsage } from '../core/ledger/interrupted-usage.js';
import type { CommittedStream } from '../core/router/route-chat.js';
import type { RouteSuccess } from '../core/router/route-types.js';
import type { ContinuedLabel } from '../core/router/stream-continuation.js';
import { createSeam, type StreamSeam } from '../core/router/stream-seam.js';
import { asProviderError, silenceError } from './stream-failures.js';

const encoder = new TextEncoder();

type StreamEvent = CommittedStream['first'];
/** What waiting for the upstream's next event gave. */
type Step = { kind: 'event'; event: StreamEvent } | { kind: 'done' } | { kind: 'error'; error: unknown };

/**
 * How one front door writes a committed stream as server-sent events (OpenAI chunks, Anthropic
 * message events). One instance per stream: a format may keep state between events.
 */
export interface StreamFormat {
  /** The text sent before the first event (e.g. OpenAI's role chunk); may be empty. */
  start(): string;
  /** One upstream event. */
  event(event: ChatStreamEvent): string;
  /** The clean end; `usage` is the finish event's. */
  end(usage: Usage | undefined): string;
  /** The explicit error event that ends a stream whose upstream failed after the commit. */
  error(message: string, failure: ProviderError): string;
  /**
   * The stream was continued after a break (docs/concepts.md#streams-cut-after-output): the
   * format puts `label` on its final chunk. Optional: a format without it shows no label.
   */
  continuedBy?(label: ContinuedLabel): void;
}

export interface SseOptions {
  format: StreamFormat;
  /** Aborts the upstream call: the caller went away. */
  abortCaller: () => void;
}

/** One stream's state: the route, what has been read so far, and whether it is over. */
interface SseState {
  route: RouteSuccess<CommittedStream>;
  options: SseOptions;
  /** The current attempt's usage, from its finish event. */
  usage: Usage | undefined;
  finished: boolean;
  /** The wait for the next event, when one is under way (it may outlive one `pull`). */
  pending: Promise<Step> | undefined;
  /** Characters of output the current attempt sent the caller (an interrupted stream's usage). */
  outputChars: number;
  /** The answer's text the caller received, every attempt of it (kept when the stream may be continued). */
  text: string;
  /** True once a tool-call event went out: such a stream is never continued. */
  toolCall: boolean;
  /** While a continuation's first characters are checked for an overlap with `text`. */
  seam: StreamSeam | undefined;
  /** The usage of the attempts that broke before the current one (the caller's usage chunk adds it). */
  billed: Usage | undefined;
}

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
 * The event as a chunk; a `finish` event's usage is kept for the usage chunk and the ledger. What
 * goes out is counted (an interrupted stream is billed for it) and, when the stream may be
 * continued, its text kept; a continuation's text passes the seam first.
 */
function eventText(state: SseState, event: StreamEvent): string {
  const { format } = state.options;
  if (event.type === 'finish') {
    state.usage = event.usage ?? state.usage;
    return heldText(state) + format.event(event);
  }
  if (event.type === 'tool_call') {
    state.toolCall = true;
    state.outputChars += (event.name?.length ?? 0) + (event.argumentsDelta?.length ?? 0);
    return heldText(state) + format.event(event);
  }
  if (event.type === 'reasoning') {
    // Reasoning is output the caller is billed for, but never part of a continued answer's text.
    state.outputChars += event.text?.length ?? 0;
    return heldText(state) + format.event(event);
  }
  const text = state.seam ? state.seam.push(event.text) : event.text;
  return text === '' ? '' : format.event(sent(state, event, text));
}

/**
 * The text event that goes out with `text` (what the seam let through of `event`), counted as sent
 * to the caller; the event itself, with its log probabilities, when the seam took nothing off.
 */
function sent(state: SseState, event: Extract<StreamEvent, { type: 'text' }>, text: string): StreamEvent {
  state.outputChars += text.length;
  if (state.route.resume) state.text += text;
  return text === event.text ? event : { type: 'text', text };
}

/** The text a continuation's seam still holds, as a chunk ('' when none): it goes before any other event. */
function heldText(state: SseState): string {
  const held = state.seam?.flush() ?? '';
  state.seam = undefined;
  return held === '' ? '' : state.options.format.event(sent(state, { type: 'text', text: held }, held));
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
