import { quoteText } from './quote-text.js';
import { resolveName } from './resolve-name.js';
import type { NameResolver, TierMember } from './types.js';
import type { WarningList } from './warning-list.js';

/** Most candidates an ambiguity warning lists before `…`. Default 5. */
const MAX_CANDIDATES_SHOWN = 5;

/**
 * Resolves one name of the chain to a tier member, or reports why it is left out: unknown,
 * ambiguous (listing the candidates), or a duplicate of a model already in the chain (`seen`,
 * compared by resolved key, so an alias of an earlier model counts). Adds new keys to `seen`.
 */
export function resolveMember(
  resolver: NameResolver,
  seen: Set<string>,
  member: { name: string; pos: number; weight: number },
  warnings: WarningList,
): TierMember | undefined {
  const { name, pos, weight } = member;
  const resolution = resolveName(resolver, name);
  const quoted = quoteText(name);
  switch (resolution.kind) {
    case 'unknown':
      warnings.add(`unknown model ${quoted}`, pos);
      return undefined;
    case 'ambiguous': {
      const shown = resolution.candidates.slice(0, MAX_CANDIDATES_SHOWN).map(quoteText);
      if (resolution.candidates.length > MAX_CANDIDATES_SHOWN) shown.push('…');
      warnings.add(`ambiguous model ${quoted}`, pos, `matches ${shown.join(', ')}; use a model key`);
      return undefined;
    }
    case 'model': {
      const key = resolution.key;
      if (!seen.has(key)) {
        seen.add(key);
        return { key, weight };
      }
      if (key === name) warnings.add(`duplicate model ${quoted}`, pos);
      else warnings.add(`duplicate model ${quoted}`, pos, `same as ${quoteText(key)}`);
      return undefined;
    }
  }
}
