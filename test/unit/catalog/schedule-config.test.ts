/** A schedule's EventBridge Scheduler settings in the config: its time zone and flexible window. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { ConfigError } from '../../../lambda/core/errors.js';

const base = {
  providers: { p: { type: 'openai', baseURL: 'https://example.test/v1' } },
  models: { m: { provider: 'p', model: 'raw' } },
  pipelines: { digest: { chain: 'm' } },
};
const withSchedule = (fields: Record<string, unknown>) => ({
  ...base,
  schedules: {
    nightly: {
      expression: 'cron(0 3 * * ? *)',
      pipeline: 'digest',
      jobs: [{ id: 'j', request: { messages: [{ role: 'user', content: 'x' }] } }],
      ...fields,
    },
  },
});
const messageOf = (raw: unknown): string => {
  try {
    parseConfig(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return '';
};

describe('a schedule’s time zone', () => {
  it('is UTC with no flexible window when the config names neither', () => {
    const schedule = parseConfig(withSchedule({})).schedules.nightly;
    expect(schedule?.timezone).toBe('UTC');
    expect(schedule?.flexibleWindowMinutes).toBeUndefined();
  });

  it.each(['Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'US/Eastern', 'Asia/Kolkata'])(
    'accepts the IANA name %s as written',
    (timezone) => {
      expect(parseConfig(withSchedule({ timezone })).schedules.nightly?.timezone).toBe(timezone);
    },
  );

  it.each([
    ['Mars/Olympus', /schedules\.nightly\.timezone: 'Mars\/Olympus' is not an IANA time zone name/],
    ['+01:00', /schedules\.nightly\.timezone: '\+01:00' is not an IANA time zone name/],
    ['CET+1', /schedules\.nightly\.timezone: 'CET\+1' is not an IANA time zone name/],
    ['', /schedules\.nightly\.timezone: '' is not an IANA time zone name/],
    ['europe/berlin', /schedules\.nightly\.timezone: write the time zone as 'Europe\/Berlin'/],
  ])('refuses %j, naming the field', (timezone, expected) => {
    expect(messageOf(withSchedule({ timezone }))).toMatch(expected);
  });
});

describe('a schedule’s flexible window', () => {
  it.each([1, 1440])('accepts %i minutes, the ends of what Scheduler allows', (minutes) => {
    const schedule = parseConfig(withSchedule({ flexibleWindowMinutes: minutes })).schedules.nightly;
    expect(schedule?.flexibleWindowMinutes).toBe(minutes);
  });

  it.each([0, 1441, 1.5])('refuses %j minutes, naming the field', (minutes) => {
    expect(messageOf(withSchedule({ flexibleWindowMinutes: minutes }))).toContain(
      'schedules.nightly.flexibleWindowMinutes',
    );
  });

  it('refuses a schedule that has both a flexible window and a spread, naming both fields', () => {
    const message = messageOf(withSchedule({ flexibleWindowMinutes: 15, spreadSeconds: 1 }));
    expect(message).toContain('schedules.nightly.flexibleWindowMinutes');
    expect(message).toContain('spreadSeconds');
  });

  it('accepts a flexible window with spreadSeconds 0, which spreads nothing', () => {
    const schedule = parseConfig(withSchedule({ flexibleWindowMinutes: 15, spreadSeconds: 0 })).schedules
      .nightly;
    expect(schedule).toMatchObject({ flexibleWindowMinutes: 15, spreadSeconds: 0 });
  });
});
