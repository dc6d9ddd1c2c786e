/**
 * The fakes and a gateway wired together without hand-editing ports (issue 31, item 4):
 * `switchyard fakes --write-config FILE` writes the config for the ports the fakes bound, `serve`
 * runs on it, and a request answers 200. `--help` names every fake.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakesCommand } from '../../lambda/cli/fakes-command.js';
import { serveCommand } from '../../lambda/cli/serve-command.js';
import { fakesConfig } from '../../lambda/dev/fakes/fakes-config.js';
import { runCliCaptured } from '../helpers/cli-harness.js';

const FREE_PORTS = ['--openai-port', '0', '--bedrock-port', '0', '--anthropic-port', '0'];

describe('switchyard fakes --write-config', () => {
  it('writes a config for the ports the fakes bound, which serve answers with', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-fakes-'));
    let fakesOut = '';
    let served: { status: number; route: string | null; model: string | null; body: string } | undefined;
    let serveCode: number | undefined;
    const code = await fakesCommand(
      [...FREE_PORTS, '--write-config', 'fakes.json'],
      { stdout: (t) => (fakesOut += t), stderr: () => {}, env: {}, cwd: dir },
      async () => {
        let serveOut = '';
        serveCode = await serveCommand(
          ['--config', join(dir, 'fakes.json'), '--port', '0'],
          { stdout: (t) => (serveOut += t), stderr: () => {}, env: {}, cwd: dir },
          async () => {
            const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serveOut)?.[1];
            const res = await fetch(`${url}/v1/chat/completions`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ model: 'comment-filter', messages: [{ role: 'user', content: 'hi' }] }),
            });
            served = {
              status: res.status,
              route: res.headers.get('x-switchyard-route'),
              model: res.headers.get('x-switchyard-model'),
              body: await res.text(),
            };
            return 'SIGTERM';
          },
        );
        return 'SIGTERM';
      },
    );
    expect(code).toBe(0);
    expect(serveCode).toBe(0);
    const roots = {
      openai: /fake OpenAI-compatible upstream: (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(fakesOut)?.[1] ?? '',
      bedrock: /fake Bedrock Converse upstream: +(http:\/\/127\.0\.0\.1:\d+)/.exec(fakesOut)?.[1] ?? '',
      anthropic: /fake Anthropic Messages upstream: (http:\/\/127\.0\.0\.1:\d+)/.exec(fakesOut)?.[1] ?? '',
    };
    for (const root of Object.values(roots)) expect(root).not.toMatch(/:401[0-2]$/);
    expect(JSON.parse(readFileSync(join(dir, 'fakes.json'), 'utf8'))).toEqual(fakesConfig(roots));
    expect(fakesOut).toContain(
      `config for these ports: ${join(dir, 'fakes.json')}   (switchyard serve --config fakes.json)\n`,
    );
    // comment-filter's first tier is the group (gpt-mini|gemini-flash): either member may answer.
    const upstream = { 'gpt-mini': 'gpt-4o-mini', 'gemini-flash': 'gemini-2.0-flash' } as const;
    const model = served?.model as keyof typeof upstream;
    expect(Object.keys(upstream)).toContain(model);
    expect(served).toMatchObject({ status: 200, route: `${model}:200` });
    expect(JSON.parse(served?.body ?? '').choices[0].message.content).toBe(`Hello from ${upstream[model]}.`);
  });

  it('refuses a file it cannot write with status 2, naming it, and leaves no fake running', async () => {
    const out = await runCliCaptured([
      'fakes',
      ...FREE_PORTS,
      '--write-config',
      '/nonexistent-dir/fakes.json',
    ]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--write-config: cannot write /nonexistent-dir/fakes.json (ENOENT)');
  });
});

describe('switchyard --help', () => {
  it('lists every fake upstream', async () => {
    const { code, stdout } = await runCliCaptured(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^ {2}fakes +run fake OpenAI-compatible, Bedrock and Anthropic upstreams to try fallbacks by hand$/m,
    );
  });

  it('names --write-config in the usage of fakes', async () => {
    const { stdout } = await runCliCaptured(['fakes', '--help']);
    expect(stdout).toContain('[--write-config FILE]');
  });
});
