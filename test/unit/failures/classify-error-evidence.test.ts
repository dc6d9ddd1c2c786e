/**
 * How `classifyError` weighs each piece of evidence on plain error objects: where it reads codes
 * and messages, which transport codes mean what, which error in a chain is the root cause, and
 * exactly what the classification carries (docs/design.md#the-failure-matrix). The SDK-shaped
 * cases live in classify-error.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  type ClassifyOptions,
  classifyError as classifyWith,
  MAX_MESSAGE_LENGTH,
} from '../../../lambda/core/failures/classify-error.js';
import { ALL_FAMILY_SIGNALS } from '../../helpers/family-signals.js';

/** The classifier with every family's signal rows: these tests walk the whole failure matrix. */
const classifyError = (error: unknown, nowMs: number, options: ClassifyOptions = {}) =>
  classifyWith(error, nowMs, { signals: ALL_FAMILY_SIGNALS, ...options });

const NOW = Date.parse('2025-03-01T12:00:00Z');
/** An error with an upstream status and extra fields, as a fetch-style wrapper throws it. */
const http = (status: number, fields: object = {}) => Object.assign(new Error(''), { status, ...fields });
const coded = (code: string, message = 'socket trouble') => Object.assign(new Error(message), { code });

describe('where the upstream code is read', () => {
  it.each([
    ['context_length_exceeded', 'context_length'],
    ['content_filter', 'content_policy'],
    ['model_not_found', 'model_not_found'],
  ])('a 400 whose body carries code %s is %s, whatever the message says', (code, failureClass) => {
    const error = http(400, { error: { code, message: 'the request could not be processed' } });
    expect(classifyError(error, NOW).failureClass).toBe(failureClass);
  });

  it('reads the body type as well as the code', () => {
    const error = http(429, { error: { type: 'insufficient_quota', message: 'check your plan' } });
    expect(classifyError(error, NOW).failureClass).toBe('upstream_auth');
  });

  it('reads a code on the error itself', () => {
    expect(classifyError(http(429, { code: 'insufficient_quota' }), NOW).failureClass).toBe('upstream_auth');
  });

  it('refines a status-less invalid_request_error by its message', () => {
    const event = { error: { type: 'invalid_request_error', message: 'prompt is too long for this model' } };
    expect(classifyError(Object.assign(new Error(''), event), NOW).failureClass).toBe('context_length');
  });

  it('reads a content filter named in one word', () => {
    expect(classifyError(http(400, { message: 'output blocked by ContentFilter' }), NOW).failureClass).toBe(
      'content_policy',
    );
  });

  it('takes a status-less specific code as it is', () => {
    const event = Object.assign(new Error(''), {
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    expect(classifyError(event, NOW).failureClass).toBe('unavailable');
  });
});

describe('which message the caller gets', () => {
  it('prefers the JSON body message over the error text', () => {
    const error = http(400, { message: '400 a wrapper sentence', error: { message: 'the body sentence' } });
    expect(classifyError(error, NOW).message).toBe('the body sentence');
  });

  it("drops openai's status prefix from the error text", () => {
    expect(classifyError(http(400, { message: '400 temperature must be at most 2' }), NOW).message).toBe(
      'temperature must be at most 2',
    );
  });

  it("reads the AWS SDK's capitalised Message", () => {
    const error = { $metadata: { httpStatusCode: 400 }, Message: 'maxTokens must be positive' };
    expect(classifyError(error, NOW).message).toBe('maxTokens must be positive');
  });

  it('takes the message of a nested error when the outer one has none', () => {
    const error = http(400, { cause: new Error('the inner sentence') });
    expect(classifyError(error, NOW).message).toBe('the inner sentence');
  });

  it('treats a blank or non-text message as no message', () => {
    expect(classifyError(http(400, { message: '   ' }), NOW).message).toBe(
      'upstream rejected the request (400)',
    );
    expect(classifyError(http(400, { message: 42 }), NOW).message).toBe(
      'upstream rejected the request (400)',
    );
  });

  it('survives a status with no message anywhere', () => {
    expect(classifyError({ status: 503 }, NOW)).toStrictEqual({
      failureClass: 'unavailable',
      message: 'upstream unavailable (503)',
      status: 503,
    });
  });

  it('puts everything on one line', () => {
    expect(classifyError(http(400, { message: 'line one\n\n   line\ttwo  ' }), NOW).message).toBe(
      'line one line two',
    );
  });

  it(`keeps a message of exactly ${MAX_MESSAGE_LENGTH} characters and cuts a longer one`, () => {
    const exact = 'x'.repeat(MAX_MESSAGE_LENGTH);
    expect(classifyError(http(400, { message: exact }), NOW).message).toBe(exact);
    const cut = classifyError(http(400, { message: `${exact}y` }), NOW).message;
    expect(cut).toBe(`${'x'.repeat(MAX_MESSAGE_LENGTH - 1)}…`);
  });

  it('names the generic message without a detail when there is neither status nor code', () => {
    expect(classifyError(new Error('boom'), NOW).message).toBe('upstream unavailable');
  });
});

describe('transport codes', () => {
  it.each([
    ['ETIMEDOUT', 'timeout'],
    ['ABORT_ERR', 'cancelled'],
    ['UND_ERR_ABORTED', 'cancelled'],
    ['ECONNRESET', 'network'],
    ['UND_ERR_SOCKET', 'network'],
    ['ERR_HTTP2_STREAM_ERROR', 'network'],
  ])('%s is %s', (code, failureClass) => {
    expect(classifyError(coded(code), NOW).failureClass).toBe(failureClass);
  });

  it('an unknown code is no evidence of a network error', () => {
    expect(classifyError(coded('XUND_ERR_SOCKET'), NOW).failureClass).toBe('unavailable');
    expect(classifyError(coded('XERR_HTTP2_STREAM'), NOW).failureClass).toBe('unavailable');
  });

  it.each([
    ['Request timed out.', 'timeout'],
    ['Connection error.', 'network'],
  ])("reads openai's default message %j when a bundler renamed the class", (message, failureClass) => {
    expect(classifyError(new Error(message), NOW).failureClass).toBe(failureClass);
  });

  it('shows a Node-style code in the generic message, and only a Node-style one', () => {
    expect(classifyError(coded('ECONNRESET'), NOW).message).toBe('upstream network error (ECONNRESET)');
    for (const code of ['econnreset', 'xECONNRESET', 'ECONNRESETx', 'EC'])
      expect(classifyError(coded(code), NOW).message).toBe('upstream unavailable');
  });
});

describe('the root cause in a chain', () => {
  it('the deepest recognised error wins', () => {
    const error = Object.assign(new Error('aborted'), { name: 'AbortError', cause: coded('ETIMEDOUT') });
    expect(classifyError(error, NOW).failureClass).toBe('timeout');
  });

  it('among errors at the same depth the first wins', () => {
    const error = new AggregateError([coded('ECONNREFUSED'), coded('ETIMEDOUT')], 'all attempts failed');
    expect(classifyError(error, NOW).failureClass).toBe('network');
  });
});

describe('what a classification carries', () => {
  it('no status for a 2xx whose body could not be read, and none without a status', () => {
    const unreadable = Object.assign(new SyntaxError('Unexpected token <'), { status: 200 });
    expect(classifyError(unreadable, NOW)).toStrictEqual({
      failureClass: 'malformed_response',
      message: 'malformed upstream response (200)',
    });
    expect(classifyError(coded('ECONNRESET'), NOW)).not.toHaveProperty('status');
  });

  it('a 400 keeps its status', () => {
    expect(classifyError(http(400, { message: 'bad' }), NOW).status).toBe(400);
  });

  it('a 2xx without other evidence is unavailable, not a request the caller got wrong', () => {
    expect(classifyError({ status: 200 }, NOW).failureClass).toBe('unavailable');
  });

  it('no cooling hint unless one was sent', () => {
    expect(classifyError(http(503), NOW)).not.toHaveProperty('retryAfterMs');
  });

  it("an adapter's carried hint of 0 ms is kept; a negative one is ignored", () => {
    const carried = (retryAfterMs: unknown) =>
      Object.assign(new Error('slow down'), {
        failureClass: 'rate_limited',
        retryAfterMs,
        headers: { 'retry-after': '7' },
      });
    expect(classifyError(carried(0), NOW).retryAfterMs).toBe(0);
    expect(classifyError(carried(-1), NOW).retryAfterMs).toBe(7000);
    expect(classifyError(carried('5'), NOW).retryAfterMs).toBe(7000);
  });
});
