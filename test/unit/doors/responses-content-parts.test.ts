import { describe, expect, it } from 'vitest';
import { formatPath } from '../../../lambda/core/catalog/parse-config.js';
import { IMAGE_INPUT_CHARS } from '../../../lambda/core/chat/media-demand.js';
import { responsesBodySchema } from '../../../lambda/doors/openai-responses/responses-request-schema.js';
import {
  responsesDemand,
  responsesToChatRequest,
} from '../../../lambda/doors/openai-responses/responses-to-chat.js';
import { PDF, PNG } from '../../helpers/media-samples.js';

const schema = responsesBodySchema(4);
const userSays = (...content: unknown[]) => ({ model: 'p', input: [{ role: 'user', content }] });
const read = (...content: unknown[]) => responsesToChatRequest(schema.parse(userSays(...content))).messages;
/** Every issue of a refused body: its field and its message. */
function refusals(...content: unknown[]): { param: string; message: string }[] {
  const parsed = schema.safeParse(userSays(...content));
  if (parsed.success) throw new Error('expected a refusal');
  return parsed.error.issues.map((issue) => ({ param: formatPath(issue.path), message: issue.message }));
}

describe('images and PDFs in a Responses user message, read as neutral parts', () => {
  it('reads input_image by base64 data URL and by http(s) URL, detail accepted and not carried', () => {
    expect(
      read(
        { type: 'input_text', text: 'What is this?' },
        { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'high' },
        { type: 'input_image', image_url: 'https://images.example.test/cat.png' },
      ),
    ).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { kind: 'data', mediaType: 'image/png', data: PNG } },
          { type: 'image', source: { kind: 'url', url: 'https://images.example.test/cat.png' } },
        ],
      },
    ]);
  });

  it('reads input_file file_data as a PDF document with its filename, and an http(s) file_url as a document by URL', () => {
    expect(
      read(
        { type: 'input_file', file_data: `data:application/pdf;base64,${PDF}`, filename: 'q3.pdf' },
        { type: 'input_file', file_url: 'https://docs.example.test/a.pdf' },
      ),
    ).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'document',
            source: { kind: 'data', mediaType: 'application/pdf', data: PDF },
            name: 'q3.pdf',
          },
          { type: 'document', source: { kind: 'url', url: 'https://docs.example.test/a.pdf' } },
        ],
      },
    ]);
  });

  it('keeps text-only parts as one string, as before parts', () => {
    expect(read({ type: 'input_text', text: 'a' }, { type: 'input_text', text: 'b' })).toEqual([
      { role: 'user', content: 'ab' },
    ]);
  });

  it('still reads function_call_output text, as a string or input_text parts', () => {
    const request = responsesToChatRequest(
      schema.parse({
        model: 'p',
        input: [
          { type: 'function_call', call_id: 'c1', name: 'w', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'cold' }] },
        ],
      }),
    );
    expect(request.messages.at(-1)).toEqual({ role: 'tool', toolCallId: 'c1', content: 'cold' });
  });

  it('counts an inline image at a fixed size in the demand, not its base64 text', () => {
    const body = schema.parse(userSays({ type: 'input_image', image_url: `data:image/png;base64,${PNG}` }));
    expect(responsesDemand(body).inputChars).toBe(
      JSON.stringify(body.input).length + IMAGE_INPUT_CHARS - PNG.length,
    );
  });
});

describe('what the Responses door refuses in a content part, by field', () => {
  it.each([
    [
      { type: 'input_image', file_id: 'file-1' },
      'input[0].content[1].file_id',
      'file_id needs the Files API, which Switchyard does not serve: send the image inline as image_url (a base64 data URL) or as an http(s) URL',
    ],
    [
      { type: 'input_image' },
      'input[0].content[1].image_url',
      'needs image_url (an http(s) URL or a base64 data URL)',
    ],
    [
      { type: 'input_image', image_url: `data:image/tiff;base64,${PNG}` },
      'input[0].content[1].image_url',
      "media type 'image/tiff' is not supported; use one of image/png, image/jpeg, image/gif, image/webp",
    ],
    [
      { type: 'input_image', image_url: 'ftp://images.example.test/cat.png' },
      'input[0].content[1].image_url',
      'must be an http(s) URL or a base64 data URL',
    ],
    [
      { type: 'input_file', file_id: 'file-1', filename: 'a.pdf' },
      'input[0].content[1].file_id',
      'file_id needs the Files API, which Switchyard does not serve: send the PDF inline as file_data (data:application/pdf;base64,...)',
    ],
    [
      { type: 'input_file', file_url: 'file:///etc/a.pdf' },
      'input[0].content[1].file_url',
      'must be an http(s) URL; or send the PDF inline as file_data (data:application/pdf;base64,...)',
    ],
    [
      { type: 'input_file', file_data: `data:text/plain;base64,${PDF}` },
      'input[0].content[1].file_data',
      "media type 'text/plain' is not supported; use one of application/pdf",
    ],
    [
      { type: 'input_file', filename: 'a.pdf' },
      'input[0].content[1].file_data',
      'needs file_data (a base64 PDF data URL) or an http(s) file_url',
    ],
    [
      { type: 'input_audio', input_audio: { data: 'AA==', format: 'wav' } },
      'input[0].content[1].type',
      "content parts of type 'input_audio' are not carried by /v1/responses: send input_text, input_image, input_file parts",
    ],
  ])('refuses %j naming %s', (part, param, message) => {
    expect(refusals({ type: 'input_text', text: 'x' }, part)).toEqual([{ param, message }]);
  });

  it('refuses an image in a system, developer or assistant message, naming its part', () => {
    for (const role of ['system', 'developer']) {
      const parsed = schema.safeParse({
        model: 'p',
        input: [{ role, content: [{ type: 'input_image', image_url: 'https://x.test/a.png' }] }],
      });
      expect(parsed.success).toBe(false);
      expect(formatPath(parsed.error?.issues[0]?.path ?? [])).toBe('input[0].content[0].type');
    }
  });

  it('refuses an image in a function_call_output, which carries text', () => {
    const parsed = schema.safeParse({
      model: 'p',
      input: [
        {
          type: 'function_call_output',
          call_id: 'c1',
          output: [{ type: 'input_image', image_url: 'https://x.test/a.png' }],
        },
      ],
    });
    expect(formatPath(parsed.error?.issues[0]?.path ?? [])).toBe('input[0].output[0].type');
  });
});
