import { describe, expect, it } from 'vitest';
import { checkServeExposure, isLoopbackHost } from '../../../lambda/cli/serve-exposure.js';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { runCliCaptured, writeTempConfig } from '../../helpers/cli-harness.js';
import { ABC_CONFIG } from '../../helpers/test-config.js';

const open = parseConfig(ABC_CONFIG);
const keyed = parseConfig({ ...ABC_CONFIG, auth: { keys: { app: 'a'.repeat(64) } } });
const empty = parseConfig({ ...ABC_CONFIG, auth: { keys: {} } });

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.20', false],
    ['128.0.0.1', false],
    ['example.test', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe('checkServeExposure', () => {
  it('lets a loopback host run without keys, silently', () => {
    expect(checkServeExposure('127.0.0.1', open, false)).toEqual([]);
  });

  it('refuses a non-loopback host with authentication off, naming the ways out', () => {
    expect(() => checkServeExposure('0.0.0.0', open, false)).toThrow(/auth\.keys.*--insecure/);
  });

  it('warns, but starts, beyond loopback with --insecure', () => {
    expect(checkServeExposure('0.0.0.0', open, true)).toEqual([expect.stringMatching(/authentication OFF/)]);
  });

  it('starts beyond loopback with caller keys', () => {
    expect(checkServeExposure('0.0.0.0', keyed, false)).toEqual([]);
  });

  it('says that an empty key list refuses every caller', () => {
    expect(checkServeExposure('127.0.0.1', empty, false)).toEqual([
      expect.stringMatching(/auth\.keys is empty: every caller is refused/),
    ]);
  });
});

describe('switchyard serve --host', () => {
  it('exits with a usage error before listening on 0.0.0.0 without keys', async () => {
    const config = writeTempConfig(ABC_CONFIG);
    const run = await runCliCaptured(['serve', '--config', config, '--host', '0.0.0.0', '--port', '0']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('refusing to listen on 0.0.0.0 without caller keys');
    expect(run.stdout).not.toContain('listening');
  });
});

describe('isLoopbackHost, spelled out', () => {
  it.each([
    ['0:0:0:0:0:0:0:1', true],
    ['::0:1', true],
    ['127.0.0.256', false],
    ['::2', false],
    ['::ffff:10.0.0.1', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});
