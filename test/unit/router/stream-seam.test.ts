import { describe, expect, it } from 'vitest';
import { createSeam, SEAM_WINDOW_CHARS, seamOverlap } from '../../../lambda/core/router/stream-seam.js';

describe('seam overlap', () => {
  it.each([
    ['the whitespace the prefill dropped', 'one two ', ' three', 1],
    ['a repeated last word', 'the capital', ' capital of', 8],
    ['the whole text written again', 'one two', 'one two three', 7],
    ['nothing repeated', 'one two', ' three', 0],
    ['a shared letter inside a word', 'the', 'e end', 0],
    ['an overlap that starts inside a word', 'xa b', 'a b c', 0],
    ['a repeated word that goes on as a longer word', 'the capital', ' capitalism', 0],
    ['a repeated word followed by punctuation', 'said no', ' no, never', 3],
  ])('%s', (_, received, continuation, overlap) => {
    expect(seamOverlap(received, continuation, false)).toBe(overlap);
  });

  it('counts an overlap that ends the continuation only once the continuation is complete', () => {
    expect(seamOverlap('the capital', ' capital', false)).toBe(0);
    expect(seamOverlap('the capital', ' capital', true)).toBe(8);
  });

  it('looks no further back than the window', () => {
    const word = 'x'.repeat(10);
    expect(seamOverlap(`a ${word}`, ` ${word} b`, false, 11)).toBe(11);
    expect(seamOverlap(`a ${word}`, ` ${word} b`, false, 10)).toBe(0);
  });
});

describe('stream seam', () => {
  it('holds the continuation until it has one character more than the text received, then drops the overlap', () => {
    const seam = createSeam('one two');
    expect(seam.push(' two')).toBe('');
    expect(seam.push(' th')).toBe('');
    expect(seam.push('r')).toBe(' thr');
    expect(seam.push('ee')).toBe('ee');
    expect(seam.flush()).toBe('');
  });

  it('decides at exactly the window when the text received is longer', () => {
    const received = 'w'.repeat(SEAM_WINDOW_CHARS + 10);
    const seam = createSeam(received);
    expect(seam.push('y'.repeat(SEAM_WINDOW_CHARS))).toBe('');
    expect(seam.push('z')).toBe(`${'y'.repeat(SEAM_WINDOW_CHARS)}z`);
  });

  it('gives what it holds, less the overlap, when the continuation ends early', () => {
    const seam = createSeam('one two');
    expect(seam.push(' two')).toBe('');
    expect(seam.flush()).toBe('');
    const other = createSeam('one two');
    other.push(' end');
    expect(other.flush()).toBe(' end');
  });

  it('passes everything through after nothing was received', () => {
    const seam = createSeam('');
    expect(seam.push('hello')).toBe('hello');
    expect(seam.flush()).toBe('');
  });
});
