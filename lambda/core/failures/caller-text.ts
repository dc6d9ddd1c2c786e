/**
 * Recognising upstream error text that the caller could have written. Providers sometimes echo
 * the request in an error message ("Invalid content: <your prompt>"), so a caller can make an
 * upstream answer any sentence it likes. Such text must never decide a failure class that
 * quarantines a route for every other caller (see docs/security.md, "Quarantine evidence").
 */

/**
 * Values (objects, arrays, strings, numbers…) read from one request at most; a request holds far
 * fewer in practice. A request with more is not read to its end, so it counts as possibly
 * holding any text.
 */
export const MAX_CALLER_TEXT_PARTS = 100_000;

/** Lower-case letters and digits only: punctuation, spacing and case never hide an echo. */
export function textSkeleton(text: string): string {
  // Upper-casing first folds letters that upper-case to two (`ß` to `SS`, `ﬁ` to `FI`), so an
  // echo the upstream upper-cased still matches; lower-casing then folds the rest (`İ`).
  return text
    .toUpperCase()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Members that hold a word from a fixed list (`role: "user"`), not the caller's free text. */
const STRUCTURAL_KEYS = new Set(['role', 'type']);

/**
 * A token-id array (`input: [[464, 1646, …]]` on embeddings): the upstream decodes it into text
 * we never see, so it could say anything. One integer is enough: the vocabulary has a token for
 * every word.
 */
function isTokenIds(value: readonly unknown[]): boolean {
  return value.length > 0 && value.every((item) => Number.isInteger(item));
}

/**
 * What one request lets its caller make an upstream say: `values`, every string and number leaf
 * in order (so messages the upstream joins read as one text); `document`, the object keys too,
 * in order (tool parameter and schema property names, which an upstream quotes as it quotes the
 * JSON); `opaque` when some of it is text we cannot read (token ids) or was too much to read.
 */
interface CallerText {
  values: string[];
  document: string[];
  opaque: boolean;
}

/** A scalar or key in document order; `structural` keys' values go to `document` only. */
type Pending = { value: unknown; key?: string | undefined; structural: boolean };

/**
 * Walks `input` depth first without recursion (a deeply nested body must not exhaust the stack).
 * A request of more than {@link MAX_CALLER_TEXT_PARTS} values (a cycle among them) is `opaque`.
 */
function readCallerText(input: unknown): CallerText {
  const text: CallerText = { values: [], document: [], opaque: false };
  const stack: Pending[] = [{ value: input, structural: false }];
  let parts = 0;
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    parts += 1;
    const { value, key, structural } = next;
    if (key !== undefined) text.document.push(key);
    if (typeof value === 'string' || typeof value === 'number') {
      text.document.push(String(value));
      if (!structural) text.values.push(String(value));
      continue;
    }
    // A value met twice is read twice (it is joined twice); a cycle runs into the bound.
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value) && isTokenIds(value)) return { ...text, opaque: true };
    const children: Pending[] = Array.isArray(value)
      ? value.map((item) => ({ value: item, structural }))
      : Object.entries(value).map(([name, item]) => ({
          value: item,
          key: name,
          structural: structural || STRUCTURAL_KEYS.has(name),
        }));
    // Every value on the stack will be read: past the bound, stop before holding them all.
    if (parts + stack.length + children.length > MAX_CALLER_TEXT_PARTS) return { ...text, opaque: true };
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as Pending);
  }
  return text;
}

/**
 * True when `phrase` could have come from the caller's request: its skeleton occurs in the
 * skeleton of everything the caller sent, concatenated (the string and number leaves alone, or
 * with the object keys in document order), so an echo survives any joining, re-spacing,
 * re-casing or quoting by the upstream. Always true when the request is unknown (`undefined`),
 * holds token ids (they decode to text we never see), or is too large to read whole
 * ({@link MAX_CALLER_TEXT_PARTS}): then nothing proves the text is the provider's own.
 *
 * @param phrase text found in an upstream error message.
 * @param callerInput the request as the caller sent it (any JSON-like value), if known.
 */
export function couldBeCallerText(phrase: string, callerInput: unknown): boolean {
  if (callerInput === undefined) return true;
  const text = readCallerText(callerInput);
  if (text.opaque) return true;
  const needle = textSkeleton(phrase);
  if (needle === '') return true;
  return (
    textSkeleton(text.values.join('')).includes(needle) ||
    textSkeleton(text.document.join('')).includes(needle)
  );
}
