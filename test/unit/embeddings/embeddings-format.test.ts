import { describe, expect, it } from 'vitest';
import { base64Vector, embeddingsBody } from '../../../lambda/core/embeddings/embeddings-format.js';
import {
  embeddingInputs,
  embeddingsBodySchema,
} from '../../../lambda/core/embeddings/embeddings-request-schema.js';
import { vertexBaseURL } from '../../../lambda/families/vertex/vertex-config-schema.js';

describe('embeddings answer', () => {
  it('encodes base64 as little-endian float32, as OpenAI does', () => {
    const encoded = base64Vector([0.5, -2, 1e-3]);
    const back = new Float32Array(new Uint8Array(Buffer.from(encoded, 'base64')).buffer);
    expect([...back]).toEqual([0.5, -2, Math.fround(1e-3)]);
    expect(base64Vector([1])).toBe('AACAPw==');
  });

  it('numbers the vectors in input order and counts only input tokens', () => {
    const body = embeddingsBody(
      { vectors: [[1], [2]], usage: { inputTokens: 7, outputTokens: 0 } },
      'e1',
      'float',
    );
    expect(body).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [1] },
        { object: 'embedding', index: 1, embedding: [2] },
      ],
      model: 'e1',
      usage: { prompt_tokens: 7, total_tokens: 7 },
    });
  });
});

describe('embeddings request', () => {
  it.each([
    ['one text', 'hello', ['hello']],
    ['texts', ['a', 'b'], ['a', 'b']],
    ['one token array', [1, 2, 3], [[1, 2, 3]]],
    ['token arrays', [[1], [2, 3]], [[1], [2, 3]]],
  ])('reads %s as a list of inputs', (_label, input, expected) => {
    expect(embeddingInputs(embeddingsBodySchema.parse({ input }).input)).toEqual(expected);
  });

  it.each([[[]], [''], [[1.5]], [Array(2049).fill('x')]])('refuses input %j', (input) => {
    expect(embeddingsBodySchema.safeParse({ input }).success).toBe(false);
  });
});

describe('vertex endpoint', () => {
  it.each([
    [
      'us-central1',
      'https://us-central1-aiplatform.googleapis.com/v1/projects/acme-prod/locations/us-central1/endpoints/openapi',
    ],
    ['global', 'https://aiplatform.googleapis.com/v1/projects/acme-prod/locations/global/endpoints/openapi'],
  ])('is derived from project and location %s', (location, url) => {
    expect(vertexBaseURL({ project: 'acme-prod', location, baseURL: undefined })).toBe(url);
  });

  it('honours a baseURL override', () => {
    expect(vertexBaseURL({ project: 'p', location: 'global', baseURL: 'http://127.0.0.1:9/v1' })).toBe(
      'http://127.0.0.1:9/v1',
    );
  });
});
