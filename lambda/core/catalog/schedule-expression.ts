import * as z from 'zod';

const RATE = /^rate\((1 (minute|hour|day)|([2-9]|[1-9]\d+) (minutes|hours|days))\)$/;

/** Why a `cron(...)` expression is not one EventBridge accepts, or undefined when it is fine. */
export function cronProblem(expression: string): string | undefined {
  const inner = /^cron\((.*)\)$/.exec(expression)?.[1];
  if (inner === undefined) return 'must be rate(...) or cron(...)';
  const fields = inner.trim().split(/\s+/);
  if (fields.length !== 6)
    return `cron needs 6 fields (minutes hours day-of-month month day-of-week year), got ${fields.length}`;
  const [, , dayOfMonth, , dayOfWeek] = fields;
  if ((dayOfMonth === '?') === (dayOfWeek === '?'))
    return 'cron needs ? in exactly one of day-of-month and day-of-week';
  if (!fields.every((f) => /^[0-9A-Za-z*?,/#LW-]+$/.test(f)))
    return 'cron fields may contain only digits, names and * ? , - / L W #';
  return undefined;
}

/**
 * An EventBridge schedule expression: `rate(5 minutes)` (singular unit for 1: `rate(1 hour)`) or
 * `cron(0 9 * * ? *)` with six fields. Checked at start-up, so a typo fails the deploy, not 3 a.m.
 */
export const scheduleExpressionSchema = z.string().superRefine((expression, ctx) => {
  if (expression.startsWith('rate(')) {
    if (!RATE.test(expression)) {
      ctx.addIssue({
        code: 'custom',
        message: 'must look like rate(1 minute), rate(5 minutes) or rate(2 hours)',
      });
    }
    return;
  }
  const problem = cronProblem(expression);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
