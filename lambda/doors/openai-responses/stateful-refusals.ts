/**
 * What the Responses door refuses, and what each refusal tells the caller to do instead. The door
 * is stateless: Switchyard stores no response, conversation or file, and runs no tool itself (a
 * route may be any provider family), so every feature that needs one of those is a 400 naming
 * its field rather than a request that silently behaves differently.
 */

/** `previous_response_id`: the conversation lives in the caller. */
export const PREVIOUS_RESPONSE =
  'Switchyard stores no responses: send the whole conversation in `input` (the earlier output items, then the new ones) instead of previous_response_id';

/** `conversation`: a stored conversation object. */
export const CONVERSATION =
  'Switchyard stores no conversations: send the whole conversation in `input` instead of a conversation id';

/** `store: true`. */
export const STORE =
  'Switchyard stores no responses: omit `store` or set it to false (Vercel AI SDK: providerOptions.openai.store = false)';

/** `background: true`. */
export const BACKGROUND =
  'background responses need stored state, which Switchyard does not keep: omit `background`, or use POST /v1/jobs for work that outlives the request';

/** `prompt`: a reusable prompt kept on OpenAI's servers. */
export const STORED_PROMPT =
  'reusable prompts live on OpenAI’s servers, which a Switchyard route may not reach: send the prompt text in `instructions` and `input`';

/** An `item_reference` input item. */
export const ITEM_REFERENCE =
  'item_reference points at a stored item and Switchyard stores none: send the item itself (Vercel AI SDK: providerOptions.openai.store = false)';

/**
 * A tool of a type other than `function`: built-in tools run on OpenAI's servers; a `custom`
 * (free-form input) tool has no counterpart in the other provider families.
 */
export function builtInTool(type: string): string {
  if (type === 'custom') {
    return 'custom (free-form input) tools are not carried: declare a function tool whose parameters hold the input';
  }
  return `built-in tool '${type}' runs on OpenAI’s servers, which a Switchyard route may not reach: only function tools are carried; declare a function tool and run it in your code`;
}

/** An input item of a type the door does not read. */
export function unsupportedItem(type: string): string {
  return `input items of type '${type}' are not carried: send messages (input_text / output_text content), function_call and function_call_output items`;
}

/** A content part of a type the door does not read in that place (`allowed` lists what it reads). */
export function unsupportedPart(type: string, allowed: string): string {
  return `content parts of type '${type}' are not carried by /v1/responses: send ${allowed} parts`;
}

/** `input_image.file_id`: an image uploaded to OpenAI's Files API. */
export const IMAGE_FILE_ID =
  'file_id needs the Files API, which Switchyard does not serve: send the image inline as image_url (a base64 data URL) or as an http(s) URL';

/** `input_file.file_id`: a file uploaded to OpenAI's Files API. */
export const PDF_FILE_ID =
  'file_id needs the Files API, which Switchyard does not serve: send the PDF inline as file_data (data:application/pdf;base64,...)';

/** `input_file.file_url` that is not an http(s) URL. */
export const PDF_FILE_URL =
  'must be an http(s) URL; or send the PDF inline as file_data (data:application/pdf;base64,...)';
