import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatedConfigRecord, validatedRecordPath } from '../../../lambda/config/validated-config.js';
import { type ApiBundle, bundleApiHandler } from '../../helpers/api-bundle.js';

/**
 * What the bundled API handler's module init does, in a fresh process as a Lambda cold start
 * runs it: the bundle beside the config and the record of its validation, as `cdk synth` ships
 * them. Node's ESM facade of `node:http` would load undici (about 10 ms of init) for nothing.
 */
let bundle: ApiBundle;
beforeAll(async () => {
  bundle = await bundleApiHandler();
  const text = readFileSync('lambda/config/default-config.json', 'utf8');
  const config = join(bundle.dir, 'switchyard.config.json');
  writeFileSync(config, text);
  writeFileSync(validatedRecordPath(config), validatedConfigRecord(text, config));
}, 60_000);
afterAll(() => bundle?.remove());

/** Imports the handler in a fresh Node and reports the built-in modules it loaded. */
function importInFreshProcess(): { loaded: string[]; handler: string } {
  const probe = join(bundle.dir, 'probe.mjs');
  writeFileSync(
    probe,
    'globalThis.awslambda = { streamifyResponse: (f) => f, HttpResponseStream: { from: (s) => s } };\n' +
      "const m = await import('./index.mjs');\n" +
      'process.stdout.write(JSON.stringify({ loaded: process.moduleLoadList, handler: typeof m.handler }));',
  );
  const out = execFileSync(process.execPath, [probe], {
    cwd: bundle.dir,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      AWS_REGION: 'us-east-1',
      SWITCHYARD_CONFIG: 'switchyard.config.json',
      LAMBDA_TASK_ROOT: bundle.dir,
    },
  });
  return JSON.parse(out) as { loaded: string[]; handler: string };
}

describe('the bundled API handler at init', () => {
  it('exports the handler without loading undici (node:http is taken without its ESM facade)', () => {
    const { loaded, handler } = importInFreshProcess();
    expect(handler).toBe('function');
    expect(loaded.filter((m) => m.includes('undici'))).toEqual([]);
    expect(loaded).toContain('NativeModule http');
  });
});
