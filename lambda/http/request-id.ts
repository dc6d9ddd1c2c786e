import { randomUUID } from 'node:crypto';

const ACCEPTABLE = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The caller's `x-request-id` when it is a sane token, else a new one (never echo junk into logs). */
export function pickRequestId(header: string | undefined): string {
  return header !== undefined && ACCEPTABLE.test(header) ? header : `req_${randomUUID().replaceAll('-', '')}`;
}
