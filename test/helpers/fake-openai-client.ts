import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { FakeUpstream } from '../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../lambda/dev/fakes/openai-fake.js';

/** The model the fake OpenAI tests ask for. */
export const MODEL = 'gpt-4o-mini';
/** 'Be brief.' + 'Say hello' = 18 chars -> ceil(18 / 4) = 5 prompt tokens. */
export const MESSAGES = [
  { role: 'system' as const, content: 'Be brief.' },
  { role: 'user' as const, content: 'Say hello' },
];

/** The fake OpenAI upstream and the real `openai` SDK on it (no retries, so each call is one request). */
export interface FakeOpenAIClient {
  readonly fake: FakeUpstream;
  readonly client: OpenAI;
}

/**
 * Registers the file's hooks: the fake starts before its tests, forgets its scripts and requests
 * before each one, and closes after them. The fields are set once the first hook has run.
 */
export function useFakeOpenAIClient(): FakeOpenAIClient {
  const rig = {} as { fake: FakeUpstream; client: OpenAI };
  beforeAll(async () => {
    rig.fake = await startFakeOpenAI();
    rig.client = new OpenAI({ baseURL: rig.fake.url, apiKey: 'test', maxRetries: 0 });
  });
  afterAll(() => rig.fake.close());
  beforeEach(() => rig.fake.reset());
  return rig;
}
