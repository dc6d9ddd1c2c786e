import { describe, expect, it } from 'vitest';
import type { Ticket } from '../../../lambda/core/admission/admission.js';
import { storedTicket, toStoredTicket } from '../../../lambda/core/admission/stored-ticket.js';

const hold = {
  limit: {
    scope: 'key',
    name: 'alice',
    kind: 'tokens',
    cap: 1_000,
    field: 'admission.keys.alice.tokensPerMinute',
  },
  slot: { counter: 'key#alice#tokens', bucket: '1700000000000', expiresAt: 1_700_000_120_000 },
  amount: 300,
  after: 700,
} as const;

const ticket = (holds: Ticket['holds']): Ticket => ({
  holds,
  reserved: { tokens: 300, costNano: 4_500 },
  budgetRemainingUsd: 1.25,
});

describe('the ticket a job record keeps', () => {
  it('keeps nothing of a ticket that holds nothing', () => {
    expect(toStoredTicket(ticket([]))).toBeUndefined();
  });

  it('keeps the holds and the reservation of a ticket with one hold, not its remaining budget', () => {
    expect(toStoredTicket(ticket([hold]))).toStrictEqual({
      holds: [hold],
      reserved: { tokens: 300, costNano: 4_500 },
    });
  });

  it('reads back what it kept as a ticket whose remaining budget is unknown', () => {
    const kept = toStoredTicket(ticket([hold]));
    expect(storedTicket(kept)).toStrictEqual({
      holds: [hold],
      reserved: { tokens: 300, costNano: 4_500 },
      budgetRemainingUsd: undefined,
    });
  });

  it.each([
    ['nothing', undefined],
    ['a ticket without holds', { holds: [], reserved: { tokens: 1, costNano: 1 } }],
    [
      'a hold with an unknown kind',
      { holds: [{ ...hold, limit: { ...hold.limit, kind: 'x' } }], reserved: { tokens: 1, costNano: 1 } },
    ],
    ['a reservation that is not a number', { holds: [hold], reserved: { tokens: '1', costNano: 1 } }],
  ])('reads %s as no ticket', (_what, value) => {
    expect(storedTicket(value)).toBeUndefined();
  });
});
