import type { NameResolution, NameResolver } from './types.js';

/**
 * Asks `resolver` about one name without letting anything escape: a throw, or an answer that is
 * not a well-formed {@link NameResolution} (no key, an empty key, candidates that are not strings),
 * counts as `unknown`. The resolver is the catalog's code, and the parser promises never to throw.
 */
export function resolveName(resolver: NameResolver, name: string): NameResolution {
  let result: NameResolution;
  try {
    result = resolver.resolve(name);
  } catch {
    return { kind: 'unknown' };
  }
  if (result?.kind === 'model' && typeof result.key === 'string' && result.key !== '') return result;
  if (result?.kind === 'ambiguous' && Array.isArray(result.candidates)) {
    return { kind: 'ambiguous', candidates: result.candidates.filter((c) => typeof c === 'string') };
  }
  return { kind: 'unknown' };
}
