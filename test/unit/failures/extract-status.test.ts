import {
  ModelStreamErrorException,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { errorChain, extractStatus } from '../../../lambda/core/failures/extract-status.js';

const meta = (httpStatusCode?: number) => ({
  httpStatusCode,
  requestId: 'f3a1c9e2',
  attempts: 1,
  totalRetryDelay: 0,
});
const econnreset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' });

describe('extractStatus', () => {
  it.each<[string, unknown, number | undefined]>([
    [
      'an OpenAI RateLimitError (status)',
      new OpenAI.RateLimitError(429, { message: 'Rate limit reached' }, undefined, new Headers()),
      429,
    ],
    [
      'an OpenAI 529 APIError (status)',
      new OpenAI.APIError(529, { message: 'Overloaded' }, undefined, new Headers()),
      529,
    ],
    [
      'a Bedrock ThrottlingException ($metadata.httpStatusCode)',
      new ThrottlingException({
        message: 'Too many requests, please wait before trying again.',
        $metadata: meta(429),
      }),
      429,
    ],
    [
      'a Bedrock ServiceUnavailableException ($metadata.httpStatusCode)',
      new ServiceUnavailableException({ message: 'Service unavailable', $metadata: meta(503) }),
      503,
    ],
    [
      'a Bedrock exception with only a raw $response',
      Object.assign(new ValidationException({ message: 'Malformed input request', $metadata: meta() }), {
        $response: { statusCode: 400, headers: {}, body: undefined },
      }),
      400,
    ],
    ['a Node http error (statusCode)', Object.assign(new Error('Bad Gateway'), { statusCode: 502 }), 502],
    [
      'a fetch wrapper error (response.status)',
      Object.assign(new Error('HTTP 504'), { response: new Response(null, { status: 504 }) }),
      504,
    ],
    [
      'an SDK error nested in cause',
      new Error('attempt failed', {
        cause: new OpenAI.InternalServerError(500, { message: 'server error' }, undefined, new Headers()),
      }),
      500,
    ],
    [
      'an SDK error nested in AggregateError.errors',
      new AggregateError([
        econnreset(),
        new ThrottlingException({ message: 'slow down', $metadata: meta(429) }),
      ]),
      429,
    ],
  ])('reads the status of %s', (_label, error, expected) => {
    expect(extractStatus(error)).toBe(expected);
  });

  it.each<[string, unknown]>([
    ['an APIConnectionTimeoutError', new OpenAI.APIConnectionTimeoutError()],
    ['an APIConnectionError caused by ECONNRESET', new OpenAI.APIConnectionError({ cause: econnreset() })],
    ['a Node network error', econnreset()],
    ['an AbortError', new DOMException('This operation was aborted', 'AbortError')],
    [
      'a Bedrock stream exception without an HTTP status',
      new ModelStreamErrorException({ message: 'stream failed', $metadata: meta() }),
    ],
    ['a non-integer status', Object.assign(new Error('odd'), { status: 429.5 })],
    ['a status below 100', Object.assign(new Error('odd'), { status: 42 })],
    ['a status above 599', Object.assign(new Error('odd'), { status: 600 })],
    ['a status given as a string', Object.assign(new Error('odd'), { status: '429' })],
    ['a string', 'HTTP 500'],
    ['null', null],
    ['undefined', undefined],
  ])('finds no status in %s', (_label, error) => {
    expect(extractStatus(error)).toBeUndefined();
  });

  it('prefers the outermost status over a nested one', () => {
    const inner = new OpenAI.RateLimitError(429, { message: 'slow down' }, undefined, new Headers());
    expect(extractStatus(Object.assign(new Error('proxy failed', { cause: inner }), { status: 502 }))).toBe(
      502,
    );
  });

  it('skips an invalid status and keeps searching the cause', () => {
    const inner = new ThrottlingException({ message: 'slow down', $metadata: meta(429) });
    expect(extractStatus(Object.assign(new Error('wrapped', { cause: inner }), { status: 0 }))).toBe(429);
  });

  it('survives a cause cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(extractStatus(a)).toBeUndefined();
    expect(errorChain(a)).toHaveLength(2);
  });

  it('stops following causes after depth 8', () => {
    let error = Object.assign(new Error('deepest'), { status: 503 });
    for (let depth = 0; depth < 9; depth += 1)
      error = Object.assign(new Error(`level ${depth}`, { cause: error }));
    expect(extractStatus(error)).toBeUndefined();
    expect(extractStatus(error.cause)).toBe(503);
  });

  it('survives a throwing getter', () => {
    const hostile = Object.defineProperty(new Error('hostile'), 'status', {
      get() {
        throw new Error('boom');
      },
    });
    expect(extractStatus(Object.assign(hostile, { statusCode: 503 }))).toBe(503);
  });

  it('caps how many errors an AggregateError contributes', () => {
    const errors = Array.from({ length: 500 }, () => econnreset());
    expect(errorChain(new AggregateError(errors)).length).toBeLessThanOrEqual(64);
  });
});
