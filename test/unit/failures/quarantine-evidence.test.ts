import * as bedrock from '@aws-sdk/client-bedrock-runtime';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { couldBeCallerText } from '../../../lambda/core/failures/caller-text.js';
import {
  type ClassifyOptions,
  classifyError as classifyWith,
} from '../../../lambda/core/failures/classify-error.js';
import { ALL_FAMILY_SIGNALS } from '../../helpers/family-signals.js';

/** The classifier with every family's signal rows: these tests walk the whole failure matrix. */
const classifyError = (error: unknown, nowMs: number, options: ClassifyOptions = {}) =>
  classifyWith(error, nowMs, { signals: ALL_FAMILY_SIGNALS, ...options });

const NOW = Date.parse('2025-03-01T12:00:00Z');
const ECHO = 'the model you asked about does not exist';
const caller = (...texts: string[]) => ({
  callerInput: { messages: texts.map((content) => ({ role: 'user', content })) },
});
const ordinary = caller('Summarise this thread.');
/** An OpenAI-compatible error body as the client builds it; `code: null` like most 400s. */
const oa = (status: number, message: string, fields: object = {}) =>
  OpenAI.APIError.generate(
    status,
    { error: { message, type: 'invalid_request_error', code: null, ...fields } },
    undefined,
    new Headers(),
  );
const validation = (message: string) =>
  new bedrock.ValidationException({ message, $metadata: { httpStatusCode: 400 } });

describe('quarantine classes come from statuses, names and codes, never from caller text', () => {
  it.each<[string, unknown, { callerInput?: unknown }, string]>([
    ['an OpenAI-compatible 400 echoing the prompt whole', oa(400, ECHO), caller(ECHO), 'invalid_request'],
    [
      'an OpenAI-compatible 400 echoing the prompt re-cased and re-spaced',
      oa(400, 'The Model  you-asked-about does NOT exist'),
      caller(ECHO),
      'invalid_request',
    ],
    [
      'a 400 whose sentence the caller split over several messages',
      oa(400, 'The model gpt-4o does not exist'),
      caller('The model', 'gpt-4o', 'does not', 'exist'),
      'invalid_request',
    ],
    [
      'a Bedrock ValidationException repeating the exact provider sentence the caller wrote',
      validation('The provided model identifier is invalid.'),
      caller('The provided model identifier is invalid.'),
      'invalid_request',
    ],
    [
      'a 400 with the sentence after a prefix (where echoes go)',
      oa(400, `Invalid content in messages[0]: ${ECHO}`),
      ordinary,
      'invalid_request',
    ],
    [
      'a provider sentence when the request is unknown',
      validation('The provided model identifier is invalid.'),
      {},
      'invalid_request',
    ],
    [
      'a provider sentence under a specific, non-model code',
      oa(400, 'The model `gpt-9` does not exist', { code: 'invalid_value' }),
      ordinary,
      'invalid_request',
    ],
    [
      'a 400 saying our key is wrong (text alone)',
      oa(400, 'Incorrect API key provided'),
      ordinary,
      'invalid_request',
    ],
  ])('does not quarantine on %s', (_label, error, options, expected) => {
    expect(classifyError(error, NOW, options).failureClass).toBe(expected);
  });

  it.each<[string, unknown, { callerInput?: unknown }, string]>([
    ['a 404, whatever its message says', oa(404, ECHO), caller(ECHO), 'model_not_found'],
    ['a 401, whatever its message says', oa(401, ECHO), caller(ECHO), 'upstream_auth'],
    [
      'a 400 with code model_not_found',
      oa(400, ECHO, { code: 'model_not_found' }),
      caller(ECHO),
      'model_not_found',
    ],
    [
      'a Bedrock ResourceNotFoundException',
      new bedrock.ResourceNotFoundException({ message: ECHO, $metadata: { httpStatusCode: 404 } }),
      caller(ECHO),
      'model_not_found',
    ],
    [
      "a code-less 400 opening with the provider's sentence the caller did not write",
      validation('The provided model identifier is invalid.'),
      ordinary,
      'model_not_found',
    ],
    [
      'a code-less OpenAI-compatible 400 naming our model id',
      oa(400, 'The model `gpt-9` does not exist'),
      ordinary,
      'model_not_found',
    ],
  ])('still quarantines on %s', (_label, error, options, expected) => {
    expect(classifyError(error, NOW, options).failureClass).toBe(expected);
  });
});

describe('couldBeCallerText', () => {
  it('finds a phrase the caller wrote, across punctuation, case and message boundaries', () => {
    const input = {
      messages: [{ content: 'THE model...' }, { content: 'you asked about: does not exist!' }],
    };
    expect(couldBeCallerText(ECHO, input)).toBe(true);
  });

  it('clears a phrase the caller did not write', () => {
    expect(couldBeCallerText('The provided model identifier is invalid', { messages: ['hello'] })).toBe(
      false,
    );
  });

  it('treats an unknown request as possibly the caller', () => {
    expect(couldBeCallerText('anything', undefined)).toBe(true);
  });
});
