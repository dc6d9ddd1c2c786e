import { describe, expect, it } from 'vitest';
import {
  alignOutput,
  cutAtSentence,
  foldLists,
  stripHeadings,
} from '../../../lambda/core/output/align-output.js';
import { withSystemSuffix } from '../../../lambda/core/output/system-suffix.js';

describe('cutAtSentence', () => {
  const text = 'One two. Three four! Five six?'; // 30 characters

  it('leaves a text of exactly maxChars alone, and cuts one of maxChars + 1', () => {
    expect(cutAtSentence(text, 30)).toBe(text);
    expect(cutAtSentence(`${text} X`, 30)).toBe(text);
    expect(cutAtSentence(`${text}X`, 30)).toBe('One two. Three four!'); // "?X" ends no sentence
  });

  it('cuts after the last sentence end that fits: at 20 the "!" is the 20th character', () => {
    expect(cutAtSentence(text, 20)).toBe('One two. Three four!');
    expect(cutAtSentence(text, 19)).toBe('One two.');
    expect(cutAtSentence(text, 8)).toBe('One two.');
  });

  it('falls back to the last space, then to a hard cut', () => {
    expect(cutAtSentence(text, 7)).toBe('One');
    expect(cutAtSentence('abcdefghij', 4)).toBe('abcd');
  });

  it('does not end a sentence inside a number', () => {
    expect(cutAtSentence('It costs 1.5 dollars per unit today', 14)).toBe('It costs 1.5');
  });

  it('counts characters, not UTF-16 units, and ends Chinese sentences without a space', () => {
    expect(cutAtSentence('第一句。第二句。第三句。', 8)).toBe('第一句。第二句。');
    expect(cutAtSentence('😀😀😀😀', 2)).toBe('😀😀');
  });
});

describe('stripHeadings', () => {
  it('removes heading lines, keeps the text, and the # that is not a heading', () => {
    expect(stripHeadings('# Title\n\nBody #1 here.\n\n## Part\nMore.\n#hashtag')).toBe(
      'Body #1 here.\n\nMore.\n#hashtag',
    );
  });

  it('leaves an indented code line of four spaces alone', () => {
    expect(stripHeadings('    # not a heading')).toBe('    # not a heading');
  });
});

describe('foldLists', () => {
  it('folds a run of items into one line of sentences', () => {
    expect(foldLists('Steps:\n- open the box\n- take it out.\n1. plug it in\n\nDone')).toBe(
      'Steps:\nopen the box. take it out. plug it in.\n\nDone',
    );
  });

  it('ends Chinese items with 。 and joins them without spaces', () => {
    expect(foldLists('- 先登录\n- 再下单')).toBe('先登录。再下单。');
  });
});

describe('alignOutput', () => {
  it('strips headings, folds lists, then cuts, in that order', () => {
    const text = '## Answer\n- first point\n- second point\n- third point';
    expect(alignOutput(text, { stripHeadings: true, foldLists: true, maxChars: 28 })).toBe(
      'first point. second point.',
    );
  });

  it('does nothing with every option off', () => {
    expect(alignOutput('# A\n- b', { stripHeadings: false, foldLists: false })).toBe('# A\n- b');
  });
});

describe('withSystemSuffix', () => {
  const user = { role: 'user' as const, content: 'hi' };

  it('appends to the last system message', () => {
    const chat = withSystemSuffix(
      { messages: [{ role: 'system', content: 'Be brief.' }, user] },
      'No emoji.',
    );
    expect(chat.messages).toEqual([{ role: 'system', content: 'Be brief.\n\nNo emoji.' }, user]);
  });

  it('adds a system message first when there is none', () => {
    expect(withSystemSuffix({ messages: [user] }, 'No emoji.').messages).toEqual([
      { role: 'system', content: 'No emoji.' },
      user,
    ]);
  });

  it('leaves the request alone without a suffix', () => {
    const chat = { messages: [user] };
    expect(withSystemSuffix(chat, undefined)).toBe(chat);
  });
});
