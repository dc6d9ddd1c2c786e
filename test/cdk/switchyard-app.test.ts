import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { buildSwitchyardApp } from '../../lib/switchyard-app.js';
import { writeTempConfig } from '../helpers/cli-harness.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FAKES = join(ROOT, 'examples', 'fakes.config.json');
const fakes = JSON.parse(readFileSync(FAKES, 'utf8')) as Record<string, unknown> & {
  providers: Record<string, Record<string, unknown>>;
};

/** Builds the app on `configPath` as `cdk synth` would (bundling off), collecting what it says. */
function build(configPath: string) {
  const lines: string[] = [];
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const run = () =>
    buildSwitchyardApp(app, { env: { SWITCHYARD_CONFIG: configPath }, cwd: ROOT, log: (l) => lines.push(l) });
  return { lines, run };
}

const httpsOnly = {
  ...fakes,
  providers: {
    'official-a': { type: 'openai', baseURL: 'https://api.openai.com/v1' },
    aggregator: { type: 'openai', baseURL: 'https://openrouter.ai/api/v1' },
    bedrock: { type: 'bedrock', region: 'us-east-1' },
    anthropic: { type: 'anthropic' },
  },
};

describe('cdk synth: the app says what it bundles and refuses local URLs', () => {
  it('refuses the fakes config (http://127.0.0.1), naming the provider field, after saying which file it read', () => {
    const { lines, run } = build(FAKES);
    expect(run).toThrow(
      /^providers\.official-a\.baseURL: http:\/\/127\.0\.0\.1:4010 is plain http:\/\/ to a loopback host .*aws\.allowInsecureBaseURLs: true/,
    );
    expect(lines).toEqual([`switchyard: stack Switchyard bundles config ${FAKES}`]);
  });

  it('refuses plain http to a remote host, and https to loopback, each naming its field', () => {
    const http = {
      ...httpsOnly,
      providers: {
        ...httpsOnly.providers,
        aggregator: { type: 'openai', baseURL: 'http://llm.example.com/v1' },
      },
    };
    expect(build(writeTempConfig(http)).run).toThrow(
      /^providers\.aggregator\.baseURL: http:\/\/llm\.example\.com is plain http:\/\/; a deployed Lambda would send prompts and keys in clear text/,
    );
    const local = {
      ...httpsOnly,
      providers: {
        ...httpsOnly.providers,
        bedrock: { type: 'bedrock', region: 'us-east-1', endpoint: 'https://localhost:4011' },
      },
    };
    expect(build(writeTempConfig(local)).run).toThrow(
      /^providers\.bedrock\.endpoint: https:\/\/localhost:4011 is a loopback host/,
    );
  });

  it('shows the scheme and host only, never credentials or the path of a URL', () => {
    const secret = {
      ...httpsOnly,
      providers: {
        ...httpsOnly.providers,
        anthropic: { type: 'anthropic', baseURL: 'http://user:hunter2@10.0.0.5/private/path' },
      },
    };
    let message = '';
    try {
      build(writeTempConfig(secret)).run();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^providers\.anthropic\.baseURL: http:\/\/10\.0\.0\.5 is plain http/);
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('private');
  });

  it('builds the fakes config when it says aws.allowInsecureBaseURLs: true', () => {
    const allowed = writeTempConfig({ ...fakes, aws: { allowInsecureBaseURLs: true } });
    const { lines, run } = build(allowed);
    expect(run().stackName).toBe('Switchyard');
    expect(lines).toEqual([`switchyard: stack Switchyard bundles config ${allowed}`]);
  });

  it('names the stack after the stage and says when it bundles the embedded default', () => {
    const staged = writeTempConfig({ ...httpsOnly, aws: { stage: 'staging' } });
    expect(build(staged).run().stackName).toBe('Switchyard-staging');
    const lines: string[] = [];
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const empty = join(writeTempConfig('{}', 'unrelated.json'), '..');
    buildSwitchyardApp(app, { env: {}, cwd: empty, log: (l) => lines.push(l) });
    expect(lines[0]).toMatch(
      /^switchyard: stack Switchyard bundles config .*default-config\.json \(the embedded default\)$/,
    );
  }, 60_000);
});
