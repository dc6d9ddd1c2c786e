import { OverrideRefusedError } from './override-refused-error.js';

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 } as const;
/** The longest timed override: a year is longer than any event an operator holds a route for. */
const MAX_MS = 366 * UNIT_MS.d;
const DURATION = /^(\d+[dhms])+$/;
/** A date and a time with seconds optional and a zone required: `2026-12-01T20:00Z`, `…T20:00:00+01:00`. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** How the CLI calls the inputs; the operator endpoints pass their JSON field names. */
export interface OverrideInputNames {
  for: string;
  until: string;
  canary: string;
  pin: string;
  autoAbort: string;
  /** The CLI's `--env` (print instead of write); the console has none. */
  env: string;
}

/** The CLI's flags: `--for`, `--until`, `--canary`, `--pin`, `--auto-abort`, `--env`. */
export const CLI_NAMES: OverrideInputNames = {
  for: '--for',
  until: '--until',
  canary: '--canary',
  pin: '--pin',
  autoAbort: '--auto-abort',
  env: '--env',
};

/** `2h`, `90m`, `1h30m`, `45s`, `1d` → ms. Throws a refusal naming `--for` (or `name`) for anything else. */
export function parseDuration(text: string, name = CLI_NAMES.for): number {
  const value = text.trim();
  if (!DURATION.test(value))
    throw new OverrideRefusedError(`${name} must be a duration such as 2h, 90m, 1h30m or 45s, not '${text}'`);
  let ms = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+)([dhms])/g))
    ms += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  if (ms <= 0) throw new OverrideRefusedError(`${name} must be longer than zero, not '${text}'`);
  if (ms > MAX_MS) throw new OverrideRefusedError(`${name} may be at most 366d, not '${text}'`);
  return ms;
}

/**
 * When a timed override ends, in ms since epoch, from `--for` (counted from `now`) or `--until`
 * (ISO 8601 with a time zone, in the future); undefined when neither is given. Refusals name
 * the inputs by `names` (default the CLI's flags).
 */
export function overrideEnd(
  flags: { for?: string | undefined; until?: string | undefined },
  now: number,
  names: OverrideInputNames = CLI_NAMES,
): number | undefined {
  if (flags.for !== undefined && flags.until !== undefined)
    throw new OverrideRefusedError(`give ${names.for} or ${names.until}, not both`);
  if (flags.for !== undefined) return now + parseDuration(flags.for, names.for);
  if (flags.until === undefined) return undefined;
  const text = flags.until.trim();
  const at = INSTANT.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at))
    throw new OverrideRefusedError(
      `${names.until} must be an ISO 8601 time with a zone, such as 2026-12-01T20:00:00Z, not '${flags.until}'`,
    );
  if (at <= now) throw new OverrideRefusedError(`${names.until} ${text} is not in the future`);
  if (at - now > MAX_MS)
    throw new OverrideRefusedError(`${names.until} may be at most 366 days ahead, not '${text}'`);
  return at;
}

/** `--canary 10` → 10: a share in %, more than 0 and less than 100. */
export function parseCanaryPercent(text: string, name = CLI_NAMES.canary): number {
  const percent = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!(percent > 0 && percent < 100))
    throw new OverrideRefusedError(
      `${name} must be a share in % between 0 and 100 (exclusive), not '${text}'`,
    );
  return percent;
}
