/**
 * Recognising upstream error text that the caller could have written. Providers sometimes echo
 * the request in an error message ("Invalid content: <your prompt>"), so a caller can make an
 * upstream answer any sentence it likes. Such text must never decide a failure class that
 * quarantines a route for every other caller (see docs/security.md, "Quarantine evidence").
 */

/** Strings collected from one request at most; a request holds far fewer in practice. */
const MAX_STRINGS = 100_000;

/** Lower-case letters and digits only: punctuation, spacing and case never hide an echo. */
export function textSkeleton(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Members that hold a word from a fixed list (`role: "user"`), not the caller's free text. */
const STRUCTURAL_KEYS = new Set(['role', 'type']);

/**
 * Every free-text string leaf of `input` in order (message texts, tool names and arguments, stop
 * sequences...), so messages the upstream joins read as one text.
 */
function collectStrings(input: unknown, out: string[], seen: Set<object>): void {
  if (out.length >= MAX_STRINGS) return;
  if (typeof input === 'string') {
    out.push(input);
    return;
  }
  if (input === null || typeof input !== 'object' || seen.has(input)) return;
  seen.add(input);
  if (Array.isArray(input)) {
    for (const value of input) collectStrings(value, out, seen);
    return;
  }
  for (const [key, value] of Object.entries(input)) {
    if (!STRUCTURAL_KEYS.has(key)) collectStrings(value, out, seen);
  }
}

/**
 * True when `phrase` could have come from the caller's request: its skeleton occurs in the
 * skeleton of everything the caller sent, concatenated, so an echo survives any joining,
 * re-spacing, re-casing or quoting by the upstream. An unknown request (`undefined`) counts as
 * "could have": without the request nothing proves the text is the provider's own.
 *
 * @param phrase text found in an upstream error message.
 * @param callerInput the request as the caller sent it (any JSON-like value), if known.
 */
export function couldBeCallerText(phrase: string, callerInput: unknown): boolean {
  if (callerInput === undefined) return true;
  const strings: string[] = [];
  collectStrings(callerInput, strings, new Set());
  const needle = textSkeleton(phrase);
  return needle === '' || textSkeleton(strings.join('')).includes(needle);
}
