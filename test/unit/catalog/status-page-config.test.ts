import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';

const minimal = {
  providers: { fake: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' } },
  models: { a: { provider: 'fake', model: 'model-a' } },
};

describe('statusPage.console', () => {
  it('is off by default', () => {
    expect(parseConfig(minimal).statusPage.console).toBe(false);
  });

  it('is accepted with the status page on', () => {
    expect(
      parseConfig({ ...minimal, statusPage: { enabled: true, console: true } }).statusPage,
    ).toMatchObject({
      enabled: true,
      console: true,
    });
  });

  it('is refused without the status page, naming the field', () => {
    expect(() => parseConfig({ ...minimal, statusPage: { console: true } })).toThrow(
      /statusPage\.console.*the operator console lives on the status page: set statusPage\.enabled: true as well/,
    );
  });
});
