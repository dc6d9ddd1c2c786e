import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import {
  type ByteMeter,
  createAnswerMeters,
  DEFAULT_ANSWER_LIMITS,
  eventStreamMeter,
  sseEventMeter,
  wholeBodyMeter,
} from '../../../lambda/families/shared/answer-limits.js';
import { malformedResponse } from '../../../lambda/families/shared/malformed-response.js';

const subject = { provider: 'openai', model: 'gpt-mini' };
const fail = () => malformedResponse(subject, 'over');

/** True when the meter took every chunk; false when one was over its bound. */
function takes(meter: ByteMeter, ...chunks: Array<string | Uint8Array>): boolean {
  try {
    for (const chunk of chunks) meter.take(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    return false;
  }
}

describe('whole-body meter', () => {
  it('takes a body of exactly its bound, in pieces', () => {
    expect(takes(wholeBodyMeter(10, fail), 'abcd', 'efghij')).toBe(true);
  });

  it('refuses the byte past its bound', () => {
    expect(takes(wholeBodyMeter(10, fail), 'abcd', 'efghijk')).toBe(false);
  });

  it('counts bytes, not characters', () => {
    // 'é' is two bytes in UTF-8: five of them are ten bytes.
    expect(takes(wholeBodyMeter(10, fail), 'ééééé')).toBe(true);
    expect(takes(wholeBodyMeter(9, fail), 'ééééé')).toBe(false);
  });

  it('stays over once over, and says so with a fresh error each time', () => {
    const meter = wholeBodyMeter(2, fail);
    expect(meter.exceeded()).toBeUndefined();
    expect(takes(meter, 'abc')).toBe(false);
    expect(takes(meter, '')).toBe(false);
    const first = meter.exceeded();
    expect(first?.failureClass).toBe('malformed_response');
    expect(meter.exceeded()).not.toBe(first);
  });
});

describe('SSE event meter', () => {
  // 'data: 12345' is 11 bytes; line ends are not counted.
  it('takes events of exactly its bound, one after another', () => {
    expect(takes(sseEventMeter(11, fail), 'data: 12345\n\ndata: 67890\n\n')).toBe(true);
  });

  it('refuses an event one byte over its bound', () => {
    expect(takes(sseEventMeter(11, fail), 'data: 12345\n\ndata: 678901\n\n')).toBe(false);
  });

  it('counts every line of an event together, until the blank line', () => {
    expect(takes(sseEventMeter(11, fail), 'event: a\ndata: b\n\n')).toBe(false); // 8 + 7 bytes
    expect(takes(sseEventMeter(15, fail), 'event: a\ndata: b\n\n')).toBe(true);
  });

  it('counts a line that has not ended yet, across chunks', () => {
    const meter = sseEventMeter(11, fail);
    expect(takes(meter, 'data: 12', '345')).toBe(true);
    expect(takes(meter, '6')).toBe(false);
  });

  it.each([
    ['\\r\\n', '\r\n'],
    ['\\r', '\r'],
    ['\\n', '\n'],
  ])('ends events at a blank line written with %s', (_name, end) => {
    const stream = `data: 12345${end}${end}data: 67890${end}${end}`;
    expect(takes(sseEventMeter(11, fail), stream)).toBe(true);
    expect(takes(sseEventMeter(10, fail), stream)).toBe(false);
  });

  it('does not take the \\n of a \\r\\n split across chunks for a blank line', () => {
    const meter = sseEventMeter(11, fail);
    // 'data: 12' CR | LF 'data: 345': one event of 8 + 9 bytes, no blank line between.
    expect(takes(meter, 'data: 12\r', '\ndata: 345')).toBe(false);
  });

  it('bounds a stream that never sends a blank line as one event', () => {
    const meter = sseEventMeter(20, fail);
    expect(takes(meter, 'data: 1\n', 'data: 2\n')).toBe(true); // 14 bytes
    expect(takes(meter, 'data: 3\n')).toBe(false); // 21 bytes
  });

  it('bounds comments like any other line', () => {
    expect(takes(sseEventMeter(5, fail), ': keep-alive\n\n')).toBe(false);
  });

  it('takes a long stream of small events', () => {
    const meter = sseEventMeter(11, fail);
    const chunk = 'data: 12345\n\n'.repeat(10_000);
    expect(takes(meter, chunk, chunk)).toBe(true);
  });
});

describe('AWS event-stream meter', () => {
  const message = (total: number) => {
    const bytes = Buffer.alloc(total, 0x61);
    bytes.writeUInt32BE(total, 0);
    return bytes;
  };

  it('takes messages of exactly its bound', () => {
    expect(takes(eventStreamMeter(64, fail), Buffer.concat([message(64), message(16), message(64)]))).toBe(
      true,
    );
  });

  it('refuses a message that declares one byte more, before its payload comes', () => {
    const meter = eventStreamMeter(64, fail);
    expect(takes(meter, message(16))).toBe(true);
    expect(takes(meter, message(65).subarray(0, 4))).toBe(false);
  });

  it('reads a length split across chunks', () => {
    const big = message(65);
    const meter = eventStreamMeter(64, fail);
    expect(takes(meter, message(16), big.subarray(0, 2))).toBe(true);
    expect(takes(meter, big.subarray(2, 3))).toBe(true);
    expect(takes(meter, big.subarray(3, 4))).toBe(false);
  });

  it('reads the length of each message after the one before', () => {
    const meter = eventStreamMeter(64, fail);
    const two = Buffer.concat([message(40), message(65)]);
    expect(takes(meter, two.subarray(0, 30), two.subarray(30, 41))).toBe(true);
    expect(takes(meter, two.subarray(41))).toBe(false);
  });
});

describe('answer meters of a model', () => {
  const meters = createAnswerMeters({ maxUpstreamBodyBytes: 10, maxUpstreamEventBytes: 11 }, subject);

  it('name the route and the setting in their errors', () => {
    const body = meters.body();
    expect(takes(body, 'x'.repeat(11))).toBe(false);
    expect(body.exceeded()).toMatchObject({
      provider: 'openai',
      model: 'gpt-mini',
      failureClass: 'malformed_response',
      message: 'malformed upstream response: a body over 10 bytes (limits.maxUpstreamBodyBytes)',
    });
    const sse = meters.sse();
    expect(takes(sse, 'data: 123456')).toBe(false);
    expect(sse.exceeded()?.message).toBe(
      'malformed upstream response: a stream event over 11 bytes (limits.maxUpstreamEventBytes)',
    );
  });

  it('let a body grow by the extra bytes asked for', () => {
    expect(takes(meters.body(5), 'x'.repeat(15))).toBe(true);
    expect(takes(meters.body(5), 'x'.repeat(16))).toBe(false);
  });

  it('default to 8 MiB per body and 1 MiB per event', () => {
    expect(DEFAULT_ANSWER_LIMITS).toStrictEqual({
      maxUpstreamBodyBytes: 8 * 1024 * 1024,
      maxUpstreamEventBytes: 1024 * 1024,
    });
  });
});
