import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { writeTempConfig } from '../helpers/cli-harness.js';
import { ABC_CONFIG } from '../helpers/test-config.js';

const run = promisify(execFile);

describe('npx switchyard explain (real process)', () => {
  it('prints the resolved tiers as JSON for the documented example', async () => {
    const config = writeTempConfig(ABC_CONFIG);
    const { stdout } = await run('npx', [
      'switchyard',
      'explain',
      '--config',
      config,
      '--json',
      '(a|b),,(),c,a,nosuchmodel',
    ]);
    const output = JSON.parse(stdout);
    expect(output.tiers).toEqual([['a', 'b'], ['c']]);
    expect(output.warnings).toHaveLength(4);
  });

  it('exits with status 2 when nothing resolves', async () => {
    const config = writeTempConfig(ABC_CONFIG);
    await expect(
      run('npx', ['switchyard', 'explain', '--config', config, 'nosuchmodel']),
    ).rejects.toMatchObject({ code: 2 });
  });
});
