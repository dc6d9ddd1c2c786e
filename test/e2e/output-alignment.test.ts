import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

let h: GatewayHarness;
afterEach(async () => {
  await h?.close();
});

const SUFFIX = 'Answer in at most 80 words. No emoji.';
const RAMBLING =
  '## Answer\n\nHere is what to do:\n- restart the router\n- wait a minute\n\nThat should fix it. Anything else I can help with?';
const pipelines = {
  p: {
    chain: 'a,b',
    substitutes: { stripHeadings: true, foldLists: true, maxChars: 80 },
    systemPromptSuffix: SUFFIX,
  },
};
const ask = { model: 'p', messages: [{ role: 'user', content: 'the wifi is down' }] };
const content = async (res: Response) => (await res.json()).choices[0].message.content as string;

describe('output alignment over HTTP', () => {
  it('post-processes an answer from a substitute (tier 2): headings gone, list folded, cut at a sentence', async () => {
    h = await startGatewayHarness(pipelines);
    h.openai.setDefault('model-a', { status: 503 });
    h.openai.setDefault('model-b', { text: RAMBLING });
    const res = await h.post(ask);
    expect(res.headers.get('x-switchyard-model')).toBe('b');
    expect(await content(res)).toBe(
      'Here is what to do:\nrestart the router. wait a minute.\n\nThat should fix it.',
    );
  });

  it('leaves the tier-1 answer exactly as the model wrote it', async () => {
    h = await startGatewayHarness(pipelines);
    h.openai.setDefault('model-a', { text: RAMBLING });
    const res = await h.post(ask);
    expect(res.headers.get('x-switchyard-model')).toBe('a');
    expect(await content(res)).toBe(RAMBLING);
  });

  it('adds the system-prompt suffix on every model, tier 1 and substitute alike', async () => {
    h = await startGatewayHarness(pipelines);
    h.openai.script('model-a', [{ status: 503 }]);
    await h.post({
      ...ask,
      messages: [{ role: 'system', content: 'You are the help desk.' }, ...ask.messages],
    });
    for (const model of ['model-a', 'model-b']) {
      expect(h.openai.requestsFor(model)[0]?.messages?.[0]).toEqual({
        role: 'system',
        text: `You are the help desk.\n\n${SUFFIX}`,
      });
    }
  });

  it('does not post-process a structured answer from a substitute (its JSON is checked instead)', async () => {
    h = await startGatewayHarness(pipelines);
    h.openai.setDefault('model-a', { status: 503 });
    const json = '{"steps":["# restart the router and wait a minute before trying again, please"]}';
    h.openai.setDefault('model-b', { text: json });
    const res = await h.post({ ...ask, response_format: { type: 'json_object' } });
    expect(await content(res)).toBe(json);
  });
});
