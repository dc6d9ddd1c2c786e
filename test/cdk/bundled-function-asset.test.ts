/**
 * What `cdk synth` uploads for a function, with bundling on: the handler module `index.mjs`
 * (handler `index.handler`), the chunks it loads on first use, the config beside them and the
 * record of its validation at synth (which a starting function trusts while the text matches); each
 * function its own asset (the CDK caches staged assets by their bundling options, so two handlers
 * must never share one), and one file without chunks when splitting is off.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../lambda/config/switchyard-config.js';
import { trustedConfig } from '../../lambda/config/validated-config.js';
import { BundledFunction } from '../../lib/constructs/bundled-function.js';

const out = mkdtempSync(join(tmpdir(), 'bundled-function-asset-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

interface Deployed {
  handler: string;
  dir: string;
}
let deployed: Map<string, Deployed>;
const CONFIG = JSON.stringify({
  providers: { marker: { type: 'openai', baseURL: 'https://bundled-function-asset.test/v1' } },
  models: { m: { provider: 'marker', model: 'raw' } },
});

beforeAll(() => {
  const configFile = join(out, 'config.json');
  writeFileSync(configFile, CONFIG);
  const app = new App({ outdir: join(out, 'cdk.out'), context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new Stack(app, 'AssetTest', { env: { account: '123456789012', region: 'us-east-1' } });
  const common = { configFile, timeoutSeconds: 30, environment: {} };
  new BundledFunction(stack, 'Api', { ...common, handlerFile: 'api.ts' });
  new BundledFunction(stack, 'Scheduler', { ...common, handlerFile: 'scheduler.ts' });
  new BundledFunction(stack, 'EagerScheduler', { ...common, handlerFile: 'scheduler.ts', splitting: false });
  const assembly = app.synth();
  const resources = assembly.getStackByName('AssetTest').template.Resources as Record<
    string,
    { Type: string; Metadata?: Record<string, string>; Properties: { Handler?: string } }
  >;
  deployed = new Map(
    Object.entries(resources)
      .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
      .map(([id, r]) => [
        id.replace(/Handler[0-9A-F]{8}$/, ''),
        {
          handler: r.Properties.Handler ?? '',
          dir: join(assembly.directory, r.Metadata?.['aws:asset:path'] ?? ''),
        },
      ]),
  );
}, 120_000);

const fn = (name: string): Deployed => {
  const found = deployed.get(name);
  if (!found) throw new Error(`no function ${name} among ${[...deployed.keys()].join(', ')}`);
  return found;
};

describe('bundled function asset', () => {
  it('holds index.mjs with its chunks and the config, and runs index.handler', () => {
    const api = fn('Api');
    expect(api.handler).toBe('index.handler');
    expect(readdirSync(api.dir).sort()).toEqual([
      'chunks',
      'index.mjs',
      'switchyard.config.json',
      'switchyard.config.validated.json',
    ]);
    expect(readdirSync(join(api.dir, 'chunks')).filter((f) => f.endsWith('.mjs')).length).toBeGreaterThan(5);
    expect(readFileSync(join(api.dir, 'switchyard.config.json'), 'utf8')).toBe(CONFIG);
  });

  it('holds the record of the config validated at synth, written for exactly the text it ships', () => {
    const record = readFileSync(join(fn('Api').dir, 'switchyard.config.validated.json'), 'utf8');
    expect(trustedConfig(CONFIG, record)).toEqual(parseConfigText(CONFIG, 'config.json'));
    expect(trustedConfig(`${CONFIG} `, record)).toBeUndefined();
  });

  it('refuses to synthesise a function with a broken config, naming the field', () => {
    const broken = join(out, 'broken.json');
    writeFileSync(broken, CONFIG.replace('"raw"', '42'));
    const stack = new Stack(new App({ outdir: join(out, 'broken.out') }), 'Broken');
    const build = () =>
      new BundledFunction(stack, 'Scheduler', {
        configFile: broken,
        timeoutSeconds: 30,
        environment: {},
        handlerFile: 'scheduler.ts',
        splitting: false,
      });
    expect(build).toThrow(
      /ConfigError: models\.m\.model: invalid config: models\.m\.model: .*expected string/,
    );
  });

  it('builds each handler into its own asset', () => {
    expect(fn('Api').dir).not.toBe(fn('Scheduler').dir);
    expect(readFileSync(join(fn('Api').dir, 'index.mjs'), 'utf8')).not.toBe(
      readFileSync(join(fn('Scheduler').dir, 'index.mjs'), 'utf8'),
    );
  });

  it('builds one eager file when splitting is off', () => {
    const eager = fn('EagerScheduler');
    expect(eager.dir).not.toBe(fn('Scheduler').dir);
    expect(existsSync(join(eager.dir, 'chunks'))).toBe(false);
    expect(readdirSync(eager.dir).sort()).toEqual([
      'index.mjs',
      'switchyard.config.json',
      'switchyard.config.validated.json',
    ]);
  });
});
