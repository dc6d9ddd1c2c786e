/**
 * `switchyard serve` keeps its jobs in a SQLite file by default: a process killed with SIGKILL
 * while jobs are queued, running and finished loses none of them, and after a restart on the same
 * file every job finishes exactly once. The memory backend says plainly that it loses jobs.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../lambda/dev/fakes/openai-fake.js';
import { openJobsDb } from '../../lambda/jobs/sqlite/open-jobs-db.js';
import { createSqliteJobStore } from '../../lambda/jobs/sqlite/sqlite-job-store.js';
import { runCliCaptured, writeTempConfig } from '../helpers/cli-harness.js';
import { waitFor } from '../helpers/gateway-harness.js';
import { type ServeProcess, spawnServe, tempJobsDb } from '../helpers/serve-process.js';

const JOBS = 50;
/** Each upstream answer takes this long, so that 4 jobs at a time leave most of them queued. */
const UPSTREAM_MS = 1_000;

let fake: FakeUpstream | undefined;
const running: ServeProcess[] = [];
afterEach(async () => {
  for (const serve of running.splice(0)) serve.proc.kill('SIGKILL');
  await fake?.close();
  fake = undefined;
});

function serve(args: string[], env: NodeJS.ProcessEnv = {}): ServeProcess {
  const started = spawnServe(args, env);
  running.push(started);
  return started;
}

const prompt = (i: number) => `durable job number ${i}`;

async function submit(url: string, i: number): Promise<string> {
  const response = await fetch(`${url}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'p', messages: [{ role: 'user', content: prompt(i) }] }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { id: string }).id;
}

async function read(url: string, id: string): Promise<{ status: string; runs?: unknown[] }> {
  const response = await fetch(`${url}/v1/jobs/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as { status: string; runs?: unknown[] };
}

/** Upstream calls per job (by its prompt), split by whether the upstream answered them in full. */
function callsPerJob(upstream: FakeUpstream, from = 0) {
  const answered = new Array<number>(JOBS).fill(0);
  const cut = new Array<number>(JOBS).fill(0);
  for (const request of upstream.requests.slice(from)) {
    const text = request.messages?.at(-1)?.text ?? '';
    const i = Number(/durable job number (\d+)$/.exec(text)?.[1]);
    if (!Number.isInteger(i)) continue;
    if (request.answeredStatus === 200 && !request.aborted) answered[i] = (answered[i] ?? 0) + 1;
    else cut[i] = (cut[i] ?? 0) + 1;
  }
  return { answered, cut };
}

/** Each job's status in the jobs file, in the order of `ids`. */
async function readStatuses(path: string, ids: string[]): Promise<string[]> {
  const file = openJobsDb(path);
  try {
    const store = createSqliteJobStore({ db: file, clock: { now: () => Date.now() } });
    return Promise.all(ids.map(async (id) => (await store.get(id))?.status ?? 'missing'));
  } finally {
    file.close();
  }
}

describe('serve: jobs survive SIGKILL', () => {
  it('loses none of 50 queued, running and finished jobs, and runs each to success exactly once after a restart', async () => {
    fake = await startFakeOpenAI();
    fake.setDefault('*', { latencyMs: UPSTREAM_MS });
    const config = writeTempConfig({
      providers: { fake: { type: 'openai', baseURL: fake.url } },
      models: { a: { provider: 'fake', model: 'model-a' } },
      pipelines: { p: { chain: 'a' } },
    });
    const db = tempJobsDb();
    const first = serve(['--config', config, '--port', '0', '--jobs-db', db]);
    const firstUrl = await first.url(30_000);
    await waitFor(() => first.output().includes(`jobs: sqlite ${db} (durable`));
    const ids: string[] = [];
    for (let i = 0; i < JOBS; i++) ids.push(await submit(firstUrl, i));

    // Some answered, four in flight, the rest still queued: then the process dies at once.
    const upstream = fake;
    await waitFor(() => upstream.requests.filter((r) => r.answeredStatus === 200).length >= 8, 60_000);
    first.proc.kill('SIGKILL');
    await first.exited;
    const atKill = upstream.requests.length;
    // What the dead process left in its file, read while no process has it open.
    const statusAtKill = await readStatuses(db, ids);

    const second = serve(['--config', config, '--port', '0', '--jobs-db', db]);
    const url = await second.url(30_000);
    // Every job is there after the restart, none forgotten.
    for (const id of ids)
      expect(['queued', 'running', 'retrying', 'succeeded']).toContain((await read(url, id)).status);

    // The jobs that were running when the process died come back once their lease ends (30 s).
    const statuses = async () => Promise.all(ids.map((id) => read(url, id)));
    const until = Date.now() + 150_000;
    while ((await statuses()).some((job) => job.status !== 'succeeded')) {
      if (Date.now() > until) throw new Error(`jobs did not all finish:\n${second.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    // Each job succeeded once: one recorded run.
    expect((await statuses()).map((job) => job.runs?.length)).toEqual(new Array(JOBS).fill(1));
    const after = callsPerJob(upstream, atKill);
    for (const [i, status] of statusAtKill.entries()) {
      // A job the first process had finished is never sent again; every other one is answered
      // exactly once after the restart (a running job's first call died with its process).
      const expected = status === 'succeeded' ? 0 : 1;
      expect(after.answered[i], `job ${i} (${status} at the kill)`).toBe(expected);
      expect(after.cut[i], `job ${i}`).toBe(0);
    }
    // The scenario held: jobs finished, running and queued when the process died.
    expect(statusAtKill.filter((s) => s === 'succeeded').length).toBeGreaterThanOrEqual(1);
    expect(statusAtKill.filter((s) => s === 'running').length).toBeGreaterThanOrEqual(1);
    expect(statusAtKill.filter((s) => s === 'queued').length).toBeGreaterThanOrEqual(1);
  }, 240_000);

  it('says at start that the memory backend loses its jobs when the process stops', async () => {
    const config = writeTempConfig({
      providers: { fake: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' } },
      models: { a: { provider: 'fake', model: 'model-a' } },
    });
    const started = serve(['--config', config, '--port', '0', '--jobs', 'memory']);
    await started.url(30_000);
    await waitFor(() => started.output().includes('jobs: memory (jobs are lost when this process stops)'));
    // The durable default prints no ExperimentalWarning either (only that one warning is filtered).
    const durable = serve(['--config', config, '--port', '0']);
    await durable.url(30_000);
    await waitFor(() => /jobs: sqlite \S+jobs\.db \(durable/.test(durable.output()));
    expect(durable.output()).not.toContain('ExperimentalWarning');
  }, 60_000);

  it('refuses --jobs-db with another job backend, an unknown --jobs and an unusable file, naming the setting', async () => {
    const config = writeTempConfig({
      providers: { fake: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' } },
      models: { a: { provider: 'fake', model: 'model-a' } },
    });
    const memory = await runCliCaptured([
      'serve',
      '--config',
      config,
      '--jobs',
      'memory',
      '--jobs-db',
      'x.db',
    ]);
    expect(memory.code).toBe(2);
    expect(memory.stderr).toContain("--jobs-db needs the sqlite job backend, not 'memory'");
    const unknown = await runCliCaptured(['serve', '--config', config, '--jobs', 'redis']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--jobs: must be sqlite, memory or aws, not 'redis'");
    // A path that cannot be a file (its folder is a file) names the setting it came from.
    const unusable = await runCliCaptured(['serve', '--config', config, '--port', '0'], {
      SWITCHYARD_JOBS_DB: join(config, 'jobs.db'),
    });
    expect(unusable.code).toBe(2);
    expect(unusable.stderr).toContain('SWITCHYARD_JOBS_DB: cannot open the jobs database');
  });
});
