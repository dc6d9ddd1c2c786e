import { describe, expect, it } from 'vitest';
import { createMemoryJobQueue } from '../../../lambda/jobs/memory/memory-job-queue.js';
import { createFakeClock } from '../../helpers/fake-clock.js';

function queue(maxReceiveCount = 3) {
  const clock = createFakeClock();
  return { clock, q: createMemoryJobQueue({ clock, maxReceiveCount, visibilityTimeoutSeconds: 30 }) };
}

describe('memory job queue', () => {
  it('holds a delayed message back until its DelaySeconds have passed', async () => {
    const { clock, q } = queue();
    await q.send({ jobId: 'j' }, { delaySeconds: 20 });
    expect(await q.receive(10)).toEqual([]);
    expect(q.depth()).toMatchObject({ visible: 0, delayed: 1 });
    clock.advance(20_000);
    expect((await q.receive(10)).map((r) => r.message.jobId)).toEqual(['j']);
  });

  it('caps DelaySeconds at 900, as SQS does', async () => {
    const { q } = queue();
    await q.send({ jobId: 'j' }, { delaySeconds: 5_000 });
    expect(q.sent[0]?.delaySeconds).toBe(900);
  });

  it('hides a received message for the visibility timeout, then gives it again with a higher receive count', async () => {
    const { clock, q } = queue();
    await q.send({ jobId: 'j' }, { delaySeconds: 0 });
    const [first] = await q.receive(1);
    expect(first?.receiveCount).toBe(1);
    expect(await q.receive(1)).toEqual([]);
    expect(q.depth().inFlight).toBe(1);
    clock.advance(30_000);
    const [second] = await q.receive(1);
    expect(second?.receiveCount).toBe(2);
    // The first receive's handle is stale: it no longer deletes the message.
    await q.delete(first?.receiptHandle ?? '');
    clock.advance(30_000);
    expect(await q.receive(1)).toHaveLength(1);
  });

  it('moves a message to the dead-letter queue instead of a receive beyond maxReceiveCount', async () => {
    const { q } = queue(2);
    await q.send({ jobId: 'j' }, { delaySeconds: 0 });
    for (let i = 0; i < 2; i += 1) {
      const [got] = await q.receive(1);
      await q.release(got?.receiptHandle ?? '', 0);
    }
    expect(await q.receive(1)).toEqual([]);
    expect(q.deadLetters()).toEqual([{ jobId: 'j' }]);
    expect(q.depth()).toEqual({ visible: 0, delayed: 0, inFlight: 0, dead: 1 });
  });

  it('redrives dead letters back with a fresh receive count, at most max of them', async () => {
    const { q } = queue(1);
    for (const jobId of ['a', 'b', 'c']) await q.send({ jobId }, { delaySeconds: 0 });
    for (const got of await q.receive(3)) await q.release(got.receiptHandle, 0);
    await q.receive(3);
    expect(q.deadLetters()).toHaveLength(3);
    expect(q.redrive(2)).toBe(2);
    expect(q.deadLetters()).toEqual([{ jobId: 'c' }]);
    const again = await q.receive(10);
    expect(again.map((r) => [r.message.jobId, r.receiveCount])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
  });

  it('deletes a message for good', async () => {
    const { clock, q } = queue();
    await q.send({ jobId: 'j' }, { delaySeconds: 0 });
    const [got] = await q.receive(1);
    await q.delete(got?.receiptHandle ?? '');
    clock.advance(60_000);
    expect(await q.receive(1)).toEqual([]);
    expect(q.depth()).toEqual({ visible: 0, delayed: 0, inFlight: 0, dead: 0 });
  });
});
