/**
 * What `npm ci` may print on the documented setup (docs/toolchain.md, "What npm prints"): its
 * one-line summary and nothing else. The project's `.npmrc` sets `loglevel=error`, so a warning
 * that still reaches the output means that setting was lost or overridden (an
 * `npm_config_loglevel` in the environment), and an error means the install went wrong.
 */

/** A line of install output that the documented setup does not print, and what kind it is. */
export interface UnexpectedLine {
  /** 1-based line number in the captured output. */
  line: number;
  text: string;
  /**
   * `engine` for npm's `EBADENGINE` blocks (the check against the Node that runs npm, not the
   * Node that runs the project), `warning` and `error` for other npm log lines, `other` for
   * anything else.
   */
  kind: 'engine' | 'warning' | 'error' | 'other';
}

/**
 * npm's closing summary: `added 456 packages in 53s`, `added 1 package, and audited 2 packages
 * in 800ms`, `up to date in 5s`, with removals and changes in the same shape.
 */
const SUMMARY =
  /^(up to date|(added|removed|changed|audited) \d+ packages?)(, (and )?(added|removed|changed|audited) \d+ packages?)* in \d+(\.\d+)?(ms|s|m|h)$/;

/** What a clean audit says, when the audit is on (`npm ci` without `--no-audit`). */
const CLEAN_AUDIT = /^found 0 vulnerabilities$/;

/** Every line of `output` other than npm's summary, a clean audit and blank lines. */
export function unexpectedInstallLines(output: string): UnexpectedLine[] {
  const unexpected: UnexpectedLine[] = [];
  output.split(/\r?\n/).forEach((raw, index) => {
    const text = raw.trimEnd();
    if (text.trim() === '' || SUMMARY.test(text) || CLEAN_AUDIT.test(text)) return;
    unexpected.push({ line: index + 1, text, kind: kindOf(text) });
  });
  return unexpected;
}

function kindOf(text: string): UnexpectedLine['kind'] {
  if (/^npm warn EBADENGINE\b/i.test(text)) return 'engine';
  if (/^npm warn\b/i.test(text)) return 'warning';
  if (/^npm (error|ERR!)/i.test(text)) return 'error';
  return 'other';
}

/**
 * The package names in `EBADENGINE` blocks (`package: 'cookie@2.0.2'`), once each, in the order
 * npm printed them: what a report names instead of dozens of five-line blocks.
 */
export function enginePackagesNamed(unexpected: UnexpectedLine[]): string[] {
  const names = new Set<string>();
  for (const { kind, text } of unexpected) {
    const match = kind === 'engine' ? /package: '([^']+)'/.exec(text) : null;
    if (match?.[1]) names.add(match[1]);
  }
  return [...names];
}
