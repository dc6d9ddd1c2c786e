/**
 * The edges of walking an error chain and of what counts as an HTTP status
 * (lambda/core/failures/extract-status.ts).
 */
import { describe, expect, it } from 'vitest';
import { errorChain, extractStatus } from '../../../lambda/core/failures/extract-status.js';

describe('errorChain', () => {
  it('holds only objects: no node for an absent, null or text cause', () => {
    expect(errorChain(new Error('alone'))).toHaveLength(1);
    expect(errorChain(new Error('null cause', { cause: null }))).toHaveLength(1);
    expect(errorChain(new Error('text cause', { cause: 'ECONNRESET' }))).toHaveLength(1);
    expect(errorChain('thrown text')).toEqual([]);
    expect(errorChain(undefined)).toEqual([]);
  });

  it('puts the errors of an AggregateError one level deeper, in order', () => {
    const first = new Error('first');
    const second = new Error('second');
    const chain = errorChain(new AggregateError([first, second], 'both failed'));
    expect(chain.map((node) => [node.value, node.depth])).toEqual([
      [expect.any(AggregateError), 0],
      [first, 1],
      [second, 1],
    ]);
  });
});

describe('what counts as an HTTP status', () => {
  it.each([100, 599])('%i does', (status) => {
    expect(extractStatus({ status })).toBe(status);
  });

  it.each([99, 600, 404.5, '404', Number.NaN])('%j does not', (status) => {
    expect(extractStatus({ status })).toBeUndefined();
  });
});
