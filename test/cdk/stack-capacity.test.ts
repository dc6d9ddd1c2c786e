import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { STACK_CONFIG, synthStack, withAws } from './stack-fixture.js';

let defaults: Template;
let tuned: Template;
beforeAll(() => {
  defaults = synthStack().template;
  tuned = synthStack(
    withAws({
      capacity: {
        apiReservedConcurrency: 200,
        workerMaxConcurrency: 4,
        stageRateLimit: 50,
        stageBurstLimit: 75,
      },
      streaming: { integrationTimeoutSeconds: 300 },
    }),
  ).template;
}, 120_000);

/** The API function's properties. */
function apiFunction(template: Template): Record<string, unknown> {
  const found = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([id]) =>
    id.startsWith('ApiFunctionHandler'),
  );
  expect(found).toHaveLength(1);
  return (found[0]?.[1] as { Properties: Record<string, unknown> } | undefined)?.Properties ?? {};
}

describe('Switchyard stack: capacity controls (aws.capacity)', () => {
  it('reserves no concurrency by default, and exactly apiReservedConcurrency when set', () => {
    expect(apiFunction(defaults).ReservedConcurrentExecutions).toBeUndefined();
    expect(apiFunction(tuned).ReservedConcurrentExecutions).toBe(200);
  });

  it('caps the worker at workerMaxConcurrency (default 10)', () => {
    defaults.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: 10 },
    });
    tuned.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: 4 },
    });
  });

  it('throttles the stage at 500 rps with a burst of 1000 by default, and at the configured rate and burst', () => {
    defaults.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({ ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 }),
      ]),
    });
    tuned.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 75 }),
      ]),
    });
  });
});

describe('Switchyard stack: long streams (aws.streaming)', () => {
  it('keeps today’s 29 s integration timeout and a 30 s function by default', () => {
    for (const method of Object.values(defaults.findResources('AWS::ApiGateway::Method'))) {
      expect(method.Properties.Integration.TimeoutInMillis).toBe(29_000);
    }
    expect(apiFunction(defaults).Timeout).toBe(30);
  });

  it('lets a committed stream run for integrationTimeoutSeconds, with the function one second longer', () => {
    for (const method of Object.values(tuned.findResources('AWS::ApiGateway::Method'))) {
      expect(method.Properties.Integration.TimeoutInMillis).toBe(300_000);
      expect(method.Properties.Integration.ResponseTransferMode).toBe('STREAM');
    }
    expect(apiFunction(tuned).Timeout).toBe(301);
  });

  it('takes an explicit function timeout, at most 900 s', () => {
    const t = synthStack(
      withAws({ streaming: { integrationTimeoutSeconds: 900, functionTimeoutSeconds: 900 } }),
    ).template;
    expect(apiFunction(t).Timeout).toBe(900);
    const implicit = synthStack(withAws({ streaming: { integrationTimeoutSeconds: 900 } })).template;
    expect(apiFunction(implicit).Timeout).toBe(900);
  });

  it('still bounds the time to first byte (deadlineMs) by the integration timeout, with a second to answer', () => {
    const slow = {
      ...STACK_CONFIG,
      pipelines: { slow: { chain: 'gpt-mini', deadlineMs: 60_000 } },
      schedules: {},
    };
    expect(() => synthStack(slow)).toThrow(
      /pipeline slow: deadlineMs 60000 does not fit .* 29 s .* use at most 28000/,
    );
    const longer = withAws({ streaming: { integrationTimeoutSeconds: 61 } }, slow);
    expect(() => synthStack(longer)).not.toThrow();
    const justShort = withAws({ streaming: { integrationTimeoutSeconds: 60 } }, slow);
    expect(() => synthStack(justShort)).toThrow(/use at most 59000/);
  });
});
