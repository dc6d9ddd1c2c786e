import * as z from 'zod';

/**
 * An IANA time zone name as EventBridge Scheduler reads `ScheduleExpressionTimezone`: `UTC`,
 * `Europe/Berlin`, `America/Argentina/Buenos_Aires`, `Etc/GMT+5`. Every segment starts with a
 * capital letter, which also keeps out the numeric offsets (`+01:00`) that newer JavaScript engines
 * accept as zones but Scheduler does not.
 */
const IANA_SHAPE = /^[A-Z][A-Za-z0-9_+-]*(\/[A-Z][A-Za-z0-9_+-]*){0,2}$/;

/** The zone's canonical spelling by the runtime's time zone data, or undefined when it knows none. */
function resolvedZone(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * A schedule's time zone: an IANA name the time zone database knows (links such as `US/Eastern`
 * included), written as the database writes it. Checked at start-up, so a typo fails the deploy
 * rather than firing at the wrong hour.
 */
export const timeZoneSchema = z.string().superRefine((zone, ctx) => {
  const resolved = resolvedZone(zone);
  if (resolved !== undefined && resolved !== zone && resolved.toLowerCase() === zone.toLowerCase()) {
    ctx.addIssue({ code: 'custom', message: `write the time zone as '${resolved}'` });
    return;
  }
  if (!IANA_SHAPE.test(zone) || resolved === undefined)
    ctx.addIssue({
      code: 'custom',
      message: `'${zone.slice(0, 64)}' is not an IANA time zone name such as UTC, Europe/Berlin or America/New_York`,
    });
});
