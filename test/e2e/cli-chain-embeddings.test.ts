import { describe, expect, it } from 'vitest';
import { runCliCaptured } from '../helpers/cli-harness.js';
import { useOperatorAws } from '../helpers/operator-aws.js';

const aws = useOperatorAws({
  providers: { fake: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' } },
  models: {
    e1: { provider: 'fake', model: 'model-e1', dimensions: 8 },
    e2: { provider: 'fake', model: 'model-e2', dimensions: 8 },
    e3: { provider: 'fake', model: 'model-e3', dimensions: 16 },
    a: { provider: 'fake', model: 'model-a' },
  },
  pipelines: { index: { chain: 'e1' } },
});

const chain = (...args: string[]) => runCliCaptured(['chain', ...args, '--config', aws.config], aws.env);

describe('switchyard chain set on an embedding pipeline', () => {
  it.each([
    ['e1,e3', 'mixes embedding spaces (e1: 8, e3: 16 dimensions)'],
    ['e3', 'serves embeddings of 16 dimensions, the config chain embeddings of 8 dimensions'],
    ['a', 'serves chat, the config chain embeddings of 8 dimensions'],
  ])('refuses %s with status 2 and writes nothing', async (text, problem) => {
    const out = await chain('set', 'index', text);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(problem);
    expect(out.stderr).toMatch(/the gateway would skip it; nothing written\n$/);
    expect(aws.ssm.value('/switchyard/chains/index')).toBeUndefined();
  });

  it('writes an override of the same space', async () => {
    const out = await chain('set', 'index', 'e2,e1');
    expect(out.code).toBe(0);
    expect(aws.ssm.value('/switchyard/chains/index')).toBe('e2,e1');
  });
});
