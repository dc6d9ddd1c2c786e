/**
 * A ticket as a job record keeps it between `POST /v1/jobs` and the job's first run, which may be
 * another process (the worker Lambda): the holds to settle and what was reserved. Read back
 * through {@link storedTicket}, since a stored item is an edge like any other.
 */
import * as z from 'zod';
import type { Ticket } from './admission.js';

const count = z.number().finite();

const holdSchema = z.object({
  limit: z.object({
    scope: z.enum(['key', 'pipeline', 'route']),
    name: z.string().min(1),
    kind: z.enum(['requests', 'tokens', 'spend']),
    cap: count,
    field: z.string().min(1),
  }),
  slot: z.object({ counter: z.string().min(1), bucket: z.string().min(1), expiresAt: count }),
  amount: count,
  after: count,
});

const storedTicketSchema = z.object({
  holds: z.array(holdSchema).min(1),
  reserved: z.object({ tokens: count, costNano: count }),
});

/** What a job record keeps of a ticket: its holds and its reservation. */
export type StoredTicket = z.infer<typeof storedTicketSchema>;

/** The part of `ticket` worth keeping; undefined when it holds nothing (no limit applied). */
export function toStoredTicket(ticket: Ticket): StoredTicket | undefined {
  return ticket.holds.length === 0 ? undefined : { holds: ticket.holds, reserved: ticket.reserved };
}

/** The ticket a record kept, or undefined when it kept none or something that is not one. */
export function storedTicket(value: unknown): Ticket | undefined {
  const parsed = storedTicketSchema.safeParse(value);
  return parsed.success ? { ...parsed.data, budgetRemainingUsd: undefined } : undefined;
}
