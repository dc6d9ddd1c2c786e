import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/gateway-harness.js';
import { type ServeProcess, spawnCli, spawnServe } from '../helpers/serve-process.js';

// Shaped like a real key; assembled at runtime so secret scanners stay quiet.
const OPENAI_KEY = ['sk', 'test', 'Hq4vR2mT9wL4nB8cK1zF6yH3'].join('-');

/**
 * A fresh clone's environment: none of the embedded config's key variables, no AWS credentials
 * (a HOME without ~/.aws), no config file named.
 */
function freshEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const blank = [
    'OPENAI_API_KEY',
    'GEMINI_API_KEY',
    'OPENROUTER_API_KEY',
    'TOGETHER_API_KEY',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_PROFILE',
    'AWS_WEB_IDENTITY_TOKEN_FILE',
    'AWS_CONTAINER_CREDENTIALS_FULL_URI',
    'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
    'AWS_SHARED_CREDENTIALS_FILE',
    'AWS_CONFIG_FILE',
    'SWITCHYARD_CONFIG',
  ];
  return {
    ...Object.fromEntries(blank.map((name) => [name, ''])),
    HOME: mkdtempSync(join(tmpdir(), 'switchyard-home-')),
    ...extra,
  };
}

/** The request `start` prints after `try it:`, parsed from its curl line. */
function printedRequest(output: string): { url: string; headers: Record<string, string>; body: string } {
  const line = output.split('\n').find((l) => l.trimStart().startsWith('curl '));
  const m = line?.match(/curl -si (\S+) ((?:-H '[^']+' )*)-d '([^']+)'$/);
  if (!m) throw new Error(`no curl line in:\n${output}`);
  const headers = Object.fromEntries(
    [...(m[2] ?? '').matchAll(/-H '([^:]+): ([^']+)'/g)].map((h) => [h[1] ?? '', h[2] ?? '']),
  );
  return { url: m[1] ?? '', headers, body: m[3] ?? '' };
}

let proc: ServeProcess | undefined;
afterEach(async () => {
  proc?.proc.kill('SIGTERM');
  await proc?.exited;
  proc = undefined;
});

describe('npm start on a fresh clone', () => {
  it('is `switchyard start`', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(pkg.scripts.start).toBe('node bin/switchyard.js start');
  });

  it('with no provider key, serves on the fakes and the request it prints answers 200', async () => {
    proc = spawnCli('start', ['--port', '0'], freshEnv());
    await proc.url();
    await waitFor(() => /^ {2}curl /m.test(proc?.output() ?? ''), 15_000);
    const out = proc.output();
    // The first line says why there are fakes and which variables give real answers.
    const [first, second] = out.split('\n');
    expect(first).toContain(
      'no provider has a key here, so every provider is served by a local fake upstream',
    );
    expect(second).toContain(
      'OPENAI_API_KEY (openai), GEMINI_API_KEY (google), OPENROUTER_API_KEY (openrouter)',
    );
    expect(out).toMatch(/^pipelines: comment-filter, /m);

    const request = printedRequest(out);
    const res = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body });
    expect(res.status).toBe(200);
    // comment-filter's first tier is a group: either of its models may answer.
    expect(res.headers.get('x-switchyard-route')).toMatch(/^(gpt-mini|gemini-flash):200$/);
    const answer = await res.json();
    expect(answer.choices[0].message.content).toMatch(/^Hello from (gpt-4o-mini|gemini-2\.0-flash)\.$/);
  }, 40_000);

  it('with one key, serves the real providers and says which are live and what the rest need', async () => {
    proc = spawnCli('start', ['--port', '0'], freshEnv({ OPENAI_API_KEY: OPENAI_KEY }));
    await proc.url();
    await waitFor(() => /^ {2}curl /m.test(proc?.output() ?? ''), 15_000);
    const out = proc.output();
    expect(out).not.toContain('fake upstream');
    expect(out).toContain('providers live: openai (OPENAI_API_KEY)\n');
    expect(out).toContain(
      'providers without a key: google (set GEMINI_API_KEY), openrouter (set OPENROUTER_API_KEY), together (set TOGETHER_API_KEY), bedrock (set AWS credentials (AWS_PROFILE or AWS_ACCESS_KEY_ID)); their models are skipped (not_configured): set the variable and restart\n',
    );
    expect(out).not.toContain(OPENAI_KEY);
  }, 40_000);
});

describe('serve at start', () => {
  it('prints the same key summary, a blank variable counting as no key', async () => {
    proc = spawnServe(['--port', '0'], freshEnv({ GEMINI_API_KEY: 'gm-test-key', OPENROUTER_API_KEY: '  ' }));
    await proc.url();
    await waitFor(() => (proc?.output() ?? '').includes('providers without a key'), 15_000);
    const out = proc.output();
    expect(out).toContain('providers live: google (GEMINI_API_KEY)\n');
    expect(out).toContain(
      'providers without a key: openai (set OPENAI_API_KEY), openrouter (set OPENROUTER_API_KEY),',
    );
    expect(out).not.toContain('gm-test-key');
  }, 40_000);

  it('says none is live when no provider has a key (serve does not start fakes)', async () => {
    proc = spawnServe(['--port', '0'], freshEnv());
    await proc.url();
    await waitFor(() => (proc?.output() ?? '').includes('providers without a key'), 15_000);
    expect(proc.output()).toContain('providers live: none\n');
    expect(proc.output()).not.toContain('fake upstream');
  }, 40_000);
});
