/** The OpenAI error envelope: every error the gateway answers has this shape. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null };
}

export function errorBody(
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
): OpenAIErrorBody {
  return { error: { message, type, code, param } };
}

/** A JSON error response in the OpenAI envelope. */
export function errorResponse(
  status: number,
  body: OpenAIErrorBody,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}
