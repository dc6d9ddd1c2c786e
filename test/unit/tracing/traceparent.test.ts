import { describe, expect, it } from 'vitest';
import { parseTraceparent } from '../../../lambda/tracing/traceparent.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('traceparent', () => {
  it('reads the trace id, parent span id and flags of a version-00 header', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      traceFlags: 1,
    });
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`)?.traceFlags).toBe(0);
  });

  it('accepts upper case and a later version with more fields', () => {
    expect(parseTraceparent(`00-${TRACE.toUpperCase()}-${SPAN}-01`)?.traceId).toBe(TRACE);
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01-extra`)?.spanId).toBe(SPAN);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 00 with more fields', `00-${TRACE}-${SPAN}-01-extra`],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['not hex', `00-${'z'.repeat(32)}-${SPAN}-01`],
  ])('ignores a header that is %s', (_, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });
});
