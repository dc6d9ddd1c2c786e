import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  FAKE_ANTHROPIC_PORT,
  FAKE_BEDROCK_PORT,
  FAKE_OPENAI_PORT,
} from '../../../lambda/cli/fakes-command.js';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { fakesConfig } from '../../../lambda/dev/fakes/fakes-config.js';

const at = (port: number) => `http://127.0.0.1:${port}`;

describe('the fakes config', () => {
  it('is examples/fakes.config.json at the default ports, so the example and --write-config never drift', () => {
    const example = JSON.parse(readFileSync('examples/fakes.config.json', 'utf8'));
    expect(
      fakesConfig({
        openai: at(FAKE_OPENAI_PORT),
        bedrock: at(FAKE_BEDROCK_PORT),
        anthropic: at(FAKE_ANTHROPIC_PORT),
      }),
    ).toEqual(example);
  });

  it('is a valid config at any ports', () => {
    expect(() =>
      parseConfig(fakesConfig({ openai: at(50001), bedrock: at(50002), anthropic: at(50003) })),
    ).not.toThrow();
  });
});
