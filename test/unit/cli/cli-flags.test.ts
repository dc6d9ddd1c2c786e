import { describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../helpers/cli-harness.js';

describe('CLI flags', () => {
  it.each([
    [['serve', '--port', '99999'], '--port must be a port number between 0 and 65535'],
    [['serve', '--port', 'http'], "--port must be a port number between 0 and 65535, not 'http'"],
    [['fakes', '--openai-port', '70000'], '--openai-port must be a port number'],
    [['serve', '--max-body-bytes', '0'], '--max-body-bytes must be a positive integer'],
  ])('refuses %j with status 2 and one line', async (argv, text) => {
    const { code, stderr } = await runCliCaptured(argv);
    expect(code).toBe(2);
    expect(stderr).toContain(text);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses a PORT variable that is not a port', async () => {
    const { code, stderr } = await runCliCaptured(['serve'], { PORT: 'eighty' });
    expect(code).toBe(2);
    expect(stderr).toContain("PORT must be a port number between 0 and 65535, not 'eighty'");
  });
});
