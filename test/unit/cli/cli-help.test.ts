import { describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../helpers/cli-harness.js';

const COMMANDS = [
  'serve',
  'probe',
  'explain',
  'fakes',
  'chain',
  'keys',
  'provider-keys',
  'doctor',
  'breakers',
  'usage',
  'demo',
  'replay',
  'run-schedule',
];

describe('--help', () => {
  it.each(COMMANDS)('prints the usage of %s and exits 0 without running it', async (name) => {
    for (const flag of ['--help', '-h']) {
      const out = await runCliCaptured([name, flag]);
      expect(out).toMatchObject({ code: 0, stderr: '' });
      expect(out.stdout.startsWith(`usage: switchyard ${name} `)).toBe(true);
    }
  });

  it('lists the new commands in the command list', async () => {
    const { stdout } = await runCliCaptured(['--help']);
    expect(stdout).toMatch(/^ {2}provider-keys +set or list the upstream API keys/m);
    expect(stdout).toMatch(/^ {2}doctor +preflight of a deployment/m);
    expect(stdout).toMatch(/^ {2}chain +get, set, clear, history or rollback/m);
  });

  it('treats --help after -- as a value, not a request for help', async () => {
    const out = await runCliCaptured(['explain', '--json', '--', '--help']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("'--help' resolves to no model");
  });

  it.each([
    [['provider-keys'], 'usage: switchyard provider-keys set <provider>'],
    [['provider-keys', 'list', 'extra'], 'usage: switchyard provider-keys set <provider>'],
    [['provider-keys', 'rotate', 'openai'], "unknown action 'rotate'"],
    [['provider-keys', 'list', '--value', 'x'], "Unknown option '--value'"],
    [['chain', 'clear'], 'usage: switchyard chain get <pipeline>'],
    [['doctor', '--nope'], "Unknown option '--nope'"],
  ])('refuses %j with status 2 and no stack trace', async (argv, text) => {
    const out = await runCliCaptured(argv);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(text);
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });
});
