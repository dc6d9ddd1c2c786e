import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../lambda/config/config-file.js';
import { parseConfigText } from '../../../lambda/config/switchyard-config.js';
import {
  trustedConfig,
  validatedConfigRecord,
  validatedRecordPath,
} from '../../../lambda/config/validated-config.js';
import { ConfigError } from '../../../lambda/core/errors.js';

const VALID = JSON.stringify({
  providers: { p: { type: 'openai', baseURL: 'https://example.test/v1' } },
  models: { m: { provider: 'p', model: 'raw' } },
  pipelines: { chat: { chain: 'm' } },
});
const BROKEN = VALID.replace('"raw"', '42');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchyard-validated-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A bundled config and, when given, the record beside it, loaded as a Lambda starts. */
function loadBundled(text: string, record?: string, trustValidatedAtSynth = true) {
  const path = join(dir, 'switchyard.config.json');
  writeFileSync(path, text);
  if (record !== undefined) writeFileSync(validatedRecordPath(path), record);
  return loadConfig({ env: { SWITCHYARD_CONFIG: 'switchyard.config.json' }, cwd: dir, trustValidatedAtSynth })
    .config;
}

/** A record written for `text` whose config is `config` (what a synth would have validated). */
function recordFor(text: string, config: unknown): string {
  const { sha256 } = JSON.parse(validatedConfigRecord(text, 'x')) as { sha256: string };
  return JSON.stringify({ sha256, config });
}

function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('a config validated at synth', () => {
  it.each([
    ['the embedded default', 'lambda/config/default-config.json'],
    ['the fakes example', 'examples/fakes.config.json'],
  ])('%s read back from its record equals validating it again', (_, file) => {
    const text = readFileSync(file, 'utf8');
    expect(trustedConfig(text, validatedConfigRecord(text, file))).toEqual(parseConfigText(text, file));
  });

  it('is taken from the record at start when the record was written for exactly its text', () => {
    const marked = { ...parseConfigText(VALID, 'x'), marker: 'from the record' };
    expect(loadBundled(VALID, recordFor(VALID, marked))).toEqual(marked);
  });

  it('is validated again when the text changed after synth, and a broken one is refused naming the field', () => {
    const error = configErrorOf(() => loadBundled(BROKEN, validatedConfigRecord(VALID, 'synth')));
    expect(error.path).toBe('models.m.model');
    expect(error.message).toBe(configErrorOf(() => parseConfigText(BROKEN, 'x')).message);
  });

  it.each([
    ['no record', undefined],
    ['a record that is not JSON', '{"sha256":'],
    ['a record without a digest', JSON.stringify({ config: {} })],
    ['a record without a config', JSON.stringify({ sha256: 'a'.repeat(64) })],
    ['a record that is not an object', '"text"'],
  ])('is validated in full with %s', (_, record) => {
    expect(configErrorOf(() => loadBundled(BROKEN, record)).path).toBe('models.m.model');
    expect(loadBundled(VALID, record)).toEqual(parseConfigText(VALID, 'x'));
  });

  it('is validated in full outside a Lambda (serve, the CLI) even with a matching record', () => {
    const marked = { ...parseConfigText(VALID, 'x'), marker: 'from the record' };
    expect(loadBundled(VALID, recordFor(VALID, marked), false)).not.toHaveProperty('marker');
  });

  it('is refused at synth when broken: no record is written for it', () => {
    expect(configErrorOf(() => validatedConfigRecord(BROKEN, 'switchyard.config.json')).path).toBe(
      'models.m.model',
    );
  });
});
