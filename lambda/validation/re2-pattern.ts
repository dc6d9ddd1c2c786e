/**
 * Callers' regular expressions (`pattern`, `patternProperties`) on RE2 (the pure-JS port `re2js`),
 * whose matching time is linear in the input: V8's backtracking engine spends seconds to minutes
 * on `^(a|a)*$` against 30 `a`s and a `!`, inside the event loop, where no deadline can stop it
 * (docs/security.md#caller-supplied-schemas). What RE2 cannot run (lookaround, backreferences) is
 * refused, with a reason that names the construct.
 */
import type { RE2JS } from 're2js';

type Re2Module = typeof import('re2js');

/** The work an answer check has spent so far, and where it must stop; reset before every check. */
export interface CheckMeter {
  /** Program size × (characters + 1), summed over the strings tested. */
  patternWork: number;
  maxPatternWork: number;
  /** `$ref` evaluations. */
  refSteps: number;
  maxRefSteps: number;
}

/** Thrown from inside ajv's validation when a check would exceed one of the meter's bounds. */
export class CheckTooCostlyError extends Error {
  /** The config field whose bound was reached, e.g. `structuredOutput.maxPatternWork`. */
  readonly bound: string;
  constructor(bound: string, limit: number) {
    super(`the answer could not be checked within ${bound} (${limit})`);
    this.name = 'CheckTooCostlyError';
    this.bound = bound;
  }
}

/**
 * Why RE2 cannot run `source`, for the constructs RE2 lacks: its own parser either rejects them
 * with a message that names something else (`(?<=` reads as a bad named group) or, for `\k<n>`,
 * silently reads a literal `k`. Escapes are skipped, and nothing inside `[...]` is a group.
 */
export function unsupportedConstruct(source: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return `uses a backreference (\\${next})`;
      if (!inClass && next === 'k' && source[i + 2] === '<') return 'uses a named backreference (\\k<…>)';
      i += 1;
    } else if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') {
      inClass = true;
    } else if (c === '(' && source[i + 1] === '?') {
      const head = source.slice(i, i + 4);
      if (head.startsWith('(?=') || head.startsWith('(?!')) return `uses a lookahead (${head.slice(0, 3)})`;
      if (head === '(?<=' || head === '(?<!') return `uses a lookbehind (${head})`;
    }
  }
  return undefined;
}

/** A caller's pattern compiled for RE2, or why it cannot be. */
export type CompiledPattern = { ok: true; regex: RE2JS } | { ok: false; problem: string };

/** Compiles a JSON Schema (ECMA-262) pattern for RE2: JavaScript escapes such as `\u00e9` translated first. */
export function compilePattern(re2: Re2Module, source: string): CompiledPattern {
  const construct = unsupportedConstruct(source);
  if (construct)
    return { ok: false, problem: `${construct}, which the linear-time regex engine (RE2) cannot run` };
  try {
    return { ok: true, regex: re2.RE2JS.compile(re2.RE2JS.translateRegExp(source)) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'unknown syntax';
    return { ok: false, problem: `is not a regular expression the gateway can run (RE2 syntax): ${reason}` };
  }
}

/**
 * The regex engine ajv calls for every pattern it compiles (`code.regExp`): RE2, each test
 * charged to the meter before it runs, so that an answer never costs more than its bound.
 * `meter()` is read at test time: one engine serves every schema of the validator; `re2()` is the
 * module once loaded (only schemas with patterns load it).
 */
export function re2Engine(re2: () => Re2Module | undefined, meter: () => CheckMeter) {
  const engine = (source: string) => {
    const loaded = re2();
    // Loaded before any schema that names a pattern is compiled (the walk sees every `pattern` key).
    if (!loaded) throw new Error('the regex engine is not loaded');
    const compiled = compilePattern(loaded, source);
    // The schema walk refused every pattern RE2 cannot run; one that slips past is still not run on V8.
    if (!compiled.ok) throw new Error(`pattern ${JSON.stringify(source)} ${compiled.problem}`);
    const { regex } = compiled;
    const program = regex.programSize();
    return {
      test(input: string): boolean {
        const m = meter();
        m.patternWork += program * (input.length + 1);
        if (m.patternWork > m.maxPatternWork)
          throw new CheckTooCostlyError('structuredOutput.maxPatternWork', m.maxPatternWork);
        return regex.test(input);
      },
      // ajv keys its per-schema scope of patterns by this string.
      toString: () => `re2:${source}`,
    };
  };
  // ajv reads `code` only to print standalone validation code, which this gateway never does.
  return Object.assign(engine, { code: 're2' });
}
