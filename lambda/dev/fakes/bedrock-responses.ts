/**
 * Body builders of the Bedrock fake: the Converse JSON answer, the ConverseStream event-stream
 * frames, and the error names the real `@aws-sdk/client-bedrock-runtime` maps to exception classes.
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { type AnswerPlan, type FakeFinish, fakeSignature } from './fake-answer.js';
import type { Fault } from './fault.js';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

const STOP_REASON: Record<FakeFinish, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'content_filtered',
  guardrail: 'guardrail_intervened',
  stop_sequence: 'stop_sequence',
};

/** Bedrock `stopReason` for a neutral finish. */
export function bedrockStopReason(finish: FakeFinish): string {
  return STOP_REASON[finish];
}

/** Usage as Converse reports it: scripted cache reads and writes apart from `inputTokens`. */
function usageOf(plan: AnswerPlan, fault: Fault) {
  const read = fault.cacheReadTokens;
  const write = fault.cacheWriteTokens;
  const input = Math.max(0, plan.promptTokens - (read ?? 0) - (write ?? 0));
  return {
    inputTokens: input,
    outputTokens: plan.completionTokens,
    totalTokens: plan.promptTokens + plan.completionTokens,
    ...(read === undefined ? {} : { cacheReadInputTokens: read }),
    ...(write === undefined ? {} : { cacheWriteInputTokens: write }),
  };
}

/** A scripted `redactedReasoning` as Converse's JSON carries bytes: base64. */
const redactedBytes = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/**
 * A Converse answer: a scripted `reasoning` first, then a scripted `redactedReasoning`.
 * `latencyMs` goes into `metrics.latencyMs`.
 */
export function converseBody(plan: AnswerPlan, latencyMs: number, fault: Fault = {}, seq = 0): object {
  const { toolCall } = plan;
  const content: object[] = toolCall
    ? [{ toolUse: { toolUseId: toolCall.id, name: toolCall.name, input: toolCall.input } }]
    : [{ text: plan.text }];
  if (fault.redactedReasoning !== undefined) {
    content.unshift({ reasoningContent: { redactedContent: redactedBytes(fault.redactedReasoning) } });
  }
  if (fault.reasoning !== undefined) {
    content.unshift({
      reasoningContent: { reasoningText: { text: fault.reasoning, signature: fakeSignature(seq) } },
    });
  }
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: STOP_REASON[plan.finish],
    usage: usageOf(plan, fault),
    metrics: { latencyMs },
  };
}

/** Encodes one `:message-type: event` frame with a JSON payload. */
export function eventFrame(eventType: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: 'event' },
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8(typeof payload === 'string' ? payload : JSON.stringify(payload)),
  });
}

/** Encodes one `:message-type: exception` frame, e.g. `throttlingException` mid-stream. */
export function exceptionFrame(exceptionName: string, message: string): Uint8Array {
  // The stream union's members are the exception names in lowerCamelCase.
  const member = exceptionName.charAt(0).toLowerCase() + exceptionName.slice(1);
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: 'exception' },
      ':exception-type': { type: 'string', value: member },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

/** How a stream ends: normally, cut after N deltas, or with an exception event. */
export interface BedrockStreamEnding {
  cutAfterChunks?: number | undefined;
  error?: { name: string; message: string } | undefined;
}

/**
 * The event frames of a streamed answer: messageStart, (contentBlockStart for a tool call),
 * contentBlockDelta per chunk, contentBlockStop, messageStop, metadata. With `cutAfterChunks`
 * only messageStart (+ contentBlockStart) and N deltas (then the exception frame, if any).
 */
export function converseStreamFrames(
  plan: AnswerPlan,
  latencyMs: number,
  ending: BedrockStreamEnding,
  fault: Fault = {},
  seq = 0,
): Uint8Array[] {
  const { toolCall } = plan;
  const frames = [eventFrame('messageStart', { role: 'assistant' })];
  // A scripted reasoning is block 0: its text, then its signature; a redacted one follows whole.
  let at = 0;
  if (fault.reasoning !== undefined) {
    at += 1;
    frames.push(
      eventFrame('contentBlockDelta', {
        contentBlockIndex: 0,
        delta: { reasoningContent: { text: fault.reasoning } },
      }),
      eventFrame('contentBlockDelta', {
        contentBlockIndex: 0,
        delta: { reasoningContent: { signature: fakeSignature(seq) } },
      }),
      eventFrame('contentBlockStop', { contentBlockIndex: 0 }),
    );
  }
  if (fault.redactedReasoning !== undefined) {
    const redactedContent = redactedBytes(fault.redactedReasoning);
    frames.push(
      eventFrame('contentBlockDelta', {
        contentBlockIndex: at,
        delta: { reasoningContent: { redactedContent } },
      }),
      eventFrame('contentBlockStop', { contentBlockIndex: at }),
    );
    at += 1;
  }
  if (toolCall) {
    frames.push(
      eventFrame('contentBlockStart', {
        contentBlockIndex: at,
        start: { toolUse: { toolUseId: toolCall.id, name: toolCall.name } },
      }),
    );
  }
  const count =
    ending.cutAfterChunks === undefined
      ? plan.chunks.length
      : Math.min(ending.cutAfterChunks, plan.chunks.length);
  for (let i = 0; i < count; i++) {
    const piece = plan.chunks[i] as string;
    const delta = toolCall ? { toolUse: { input: piece } } : { text: piece };
    frames.push(eventFrame('contentBlockDelta', { contentBlockIndex: at, delta }));
  }
  if (ending.cutAfterChunks !== undefined) {
    if (ending.error) frames.push(exceptionFrame(ending.error.name, ending.error.message));
    return frames;
  }
  frames.push(
    eventFrame('contentBlockStop', { contentBlockIndex: at }),
    eventFrame('messageStop', { stopReason: STOP_REASON[plan.finish] }),
    eventFrame('metadata', { usage: usageOf(plan, fault), metrics: { latencyMs } }),
  );
  return frames;
}

const ERROR_NAME: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

const ERROR_MESSAGE: Record<string, string> = {
  ValidationException: 'Malformed input request, please reformat your input and try again.',
  AccessDeniedException: "You don't have access to the model with the specified model ID.",
  ResourceNotFoundException: 'Could not resolve the foundation model from the provided model identifier.',
  ModelTimeoutException: 'Model has timed out in processing the request. Try your request again.',
  ModelErrorException: 'The model returned an error.',
  ThrottlingException: 'Too many requests, please wait before trying again.',
  InternalServerException: 'The server encountered an internal error while processing the request.',
  ServiceUnavailableException: 'Bedrock is unable to process your request.',
  ModelNotReadyException: 'Model is not ready to serve inference requests. Try your request again.',
  ServiceQuotaExceededException: 'Your request exceeds the service quota for your account.',
};

/**
 * The exception name and message for a scripted error: `errorCode` wins, else the status table
 * (unknown 5xx → InternalServerException, unknown 4xx → ValidationException).
 */
export function bedrockError(status: number, fault: Fault): { name: string; message: string } {
  const name =
    fault.errorCode ??
    ERROR_NAME[status] ??
    (status >= 500 ? 'InternalServerException' : 'ValidationException');
  return { name, message: fault.errorMessage ?? ERROR_MESSAGE[name] ?? `${name} (fake).` };
}

/** A 200 Converse body that is not valid JSON, or valid JSON of the wrong shape. */
export function malformedConverse(kind: 'unparseable' | 'schema'): string {
  return kind === 'schema'
    ? JSON.stringify({ output: {}, stopReason: 'end_turn', usage: {} })
    : '{"output":{"message":{"role":"assistant","content":[{"text":';
}

/** Stream frames whose payload is not JSON, or JSON of the wrong shape. */
export function malformedConverseStream(kind: 'unparseable' | 'schema'): Uint8Array[] {
  return [
    eventFrame('messageStart', { role: 'assistant' }),
    eventFrame(
      'contentBlockDelta',
      kind === 'schema' ? { contentBlockIndex: 'zero', delta: 42 } : '{"delta":{"text":',
    ),
  ];
}
