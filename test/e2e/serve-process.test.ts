import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../lambda/dev/fakes/openai-fake.js';
import { writeTempConfig } from '../helpers/cli-harness.js';
import { startFakeTokenEndpoint } from '../helpers/fake-token-endpoint.js';
import { waitFor } from '../helpers/gateway-harness.js';
import { spawnServe } from '../helpers/serve-process.js';

const SECRET = 'sk-live-DoNotLeakThisKey0123456789';
const PROMPT = 'my secret prompt about the quarterly numbers';

let child: ChildProcess | undefined;
let fake: FakeUpstream | undefined;
afterEach(async () => {
  child?.kill('SIGKILL');
  await fake?.close();
});

function startServe(config: string) {
  return spawnServe(['--config', config, '--port', '0'], { FAKE_KEY: SECRET });
}

describe('switchyard serve (real process)', () => {
  it('prints its URL, serves requests, keeps prompts and keys out of its output, and finishes in-flight requests on SIGTERM', async () => {
    fake = await startFakeOpenAI();
    const config = writeTempConfig({
      providers: { fake: { type: 'openai', baseURL: fake.url, apiKeyEnv: 'FAKE_KEY' } },
      models: { a: { provider: 'fake', model: 'model-a' }, b: { provider: 'fake', model: 'model-b' } },
      pipelines: { p: { chain: 'a,b' } },
    });
    const serve = startServe(config);
    child = serve.proc;
    const url = await serve.url();

    fake.script('model-a', [{ status: 401, errorMessage: `Incorrect API key provided: ${SECRET}` }]);
    const first = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'p', messages: [{ role: 'user', content: PROMPT }] }),
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-switchyard-route')).toBe('a:401,b:200');
    expect(JSON.stringify(await first.json())).not.toContain(SECRET);

    fake.script('model-b', [{ latencyMs: 600 }]);
    const inFlight = fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'b', messages: [{ role: 'user', content: PROMPT }] }),
    });
    await waitFor(() => (fake?.requestsFor('model-b').length ?? 0) === 2);
    serve.proc.kill('SIGTERM');
    const late = await inFlight;
    expect(late.status).toBe(200);
    expect(await serve.exited).toBe(0);

    const output = serve.output();
    expect(output).toContain('SIGTERM received');
    expect(output).toContain('"type":"request"');
    expect(output).toContain('breaker opened');
    expect(output).not.toContain(SECRET);
    expect(output).not.toContain('quarterly numbers');
    expect(output).not.toContain('Hello from');
  }, 30_000);

  it('serves embeddings to the official openai client, and chat through Vertex with a service-account file', async () => {
    fake = await startFakeOpenAI();
    const tokens = await startFakeTokenEndpoint();
    try {
      const credentialsFile = join(dirname(writeTempConfig({}, 'placeholder.json')), 'vertex-sa.json');
      writeFileSync(credentialsFile, tokens.serviceAccount('serve'));
      const config = writeTempConfig({
        providers: {
          fake: { type: 'openai', baseURL: fake.url, apiKeyEnv: 'FAKE_KEY' },
          vertex: {
            type: 'vertex',
            project: 'switchyard-test',
            location: 'us-central1',
            baseURL: fake.url,
            credentialsFile,
          },
        },
        models: {
          'embed-a': { provider: 'fake', model: 'model-embed-a', dimensions: 4 },
          'embed-v': { provider: 'vertex', model: 'text-embedding-005', dimensions: 4 },
          gemini: { provider: 'vertex', model: 'google/gemini-2.0-flash-001' },
        },
        pipelines: { index: { chain: 'embed-a,embed-v' }, ask: { chain: 'gemini' } },
      });
      fake.setDefault('model-embed-a', { status: 503 });
      fake.setDefault('text-embedding-005', { dimensions: 4 });
      const serve = startServe(config);
      child = serve.proc;
      const url = await serve.url();
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused-locally', maxRetries: 0 });

      const { data: embedded, response } = await client.embeddings
        .create({ model: 'index', input: ['one', 'two'] })
        .withResponse();
      expect(embedded.model).toBe('embed-v');
      expect(embedded.data.map((d) => d.embedding.length)).toEqual([4, 4]);
      expect(response.headers.get('x-switchyard-route')).toBe('embed-a:503,embed-v:200');

      const chat = await client.chat.completions.create({
        model: 'ask',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(chat.choices[0]?.message.content).toBe('Hello from google/gemini-2.0-flash-001.');
      expect(tokens.requests).toEqual([expect.objectContaining({ signed: true, token: 'serve-token-1' })]);
      expect(serve.output()).not.toContain('PRIVATE KEY');
      expect(serve.output()).not.toContain('serve-token-1');
    } finally {
      await tokens.close();
    }
  }, 30_000);

  it('exits 1 with one line when the port is taken', async () => {
    fake = await startFakeOpenAI();
    const config = writeTempConfig({
      providers: { fake: { type: 'openai', baseURL: fake.url } },
      models: { a: { provider: 'fake', model: 'model-a' } },
    });
    const proc = spawn(
      process.execPath,
      ['bin/switchyard.js', 'serve', '--config', config, '--port', String(fake.port)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = proc;
    let err = '';
    proc.stderr?.on('data', (d) => {
      err += d;
    });
    const code = await new Promise((resolve) => proc.on('exit', resolve));
    expect(code).toBe(1);
    expect(err).toContain('already in use');
    expect(err.trim().split('\n')).toHaveLength(1);
  }, 30_000);

  it('writes the ledger to --ledger FILE and refuses a path it cannot open', async () => {
    fake = await startFakeOpenAI();
    const config = writeTempConfig({
      providers: { fake: { type: 'openai', baseURL: fake.url } },
      models: { a: { provider: 'fake', model: 'model-a' } },
      pipelines: { p: { chain: 'a' } },
    });
    const ledger = join(dirname(config), 'ledger.jsonl');
    const serve = spawnServe(['--config', config, '--port', '0', '--ledger', ledger]);
    child = serve.proc;
    const url = await serve.url();
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'p', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    serve.proc.kill('SIGTERM');
    await serve.exited;
    const lines = readFileSync(ledger, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['attempt', 'request']);
    expect(serve.output()).not.toContain('"type":"attempt"');

    const bad = spawn(
      process.execPath,
      [
        'bin/switchyard.js',
        'serve',
        '--config',
        config,
        '--port',
        '0',
        '--ledger',
        '/no/such/dir/ledger.jsonl',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = bad;
    let err = '';
    bad.stderr?.on('data', (d) => {
      err += d;
    });
    expect(await new Promise((resolve) => bad.on('exit', resolve))).toBe(2);
    expect(err).toContain('cannot open --ledger /no/such/dir/ledger.jsonl: ENOENT');
  }, 30_000);
});
