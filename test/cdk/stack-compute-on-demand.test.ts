import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../lambda/config/switchyard-config.js';
import { STACK_CONFIG, synthStack, withAws } from './stack-fixture.js';

/** aws.compute on-demand (the default) with every function's memory set. */
let sized: Template;
beforeAll(() => {
  sized = synthStack(withAws({ memoryMb: { api: 512, worker: 768, scheduler: 256 } })).template;
}, 120_000);

const memoryOf = (template: Template, prefix: string): unknown => {
  const found = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([id]) =>
    id.startsWith(prefix),
  );
  expect(found).toHaveLength(1);
  return found[0]?.[1].Properties.MemorySize;
};

describe('compute: on-demand (the default)', () => {
  it('creates no capacity provider, VPC or NAT, and no function has a capacity-provider config', () => {
    sized.resourceCountIs('AWS::Lambda::CapacityProvider', 0);
    sized.resourceCountIs('AWS::EC2::VPC', 0);
    sized.resourceCountIs('AWS::EC2::NatGateway', 0);
    for (const fn of Object.values(sized.findResources('AWS::Lambda::Function')))
      expect(fn.Properties.CapacityProviderConfig).toBeUndefined();
  });

  it('sizes each function from aws.memoryMb', () => {
    expect(memoryOf(sized, 'ApiFunctionHandler')).toBe(512);
    expect(memoryOf(sized, 'ScheduledJobsWorkerHandler')).toBe(768);
    expect(memoryOf(sized, 'ScheduledJobsSchedulerHandler')).toBe(256);
  });

  it('defaults to 1024 MB for the API and the worker and 512 MB for the scheduler', () => {
    const defaults = synthStack().template;
    expect(memoryOf(defaults, 'ApiFunctionHandler')).toBe(1024);
    expect(memoryOf(defaults, 'ScheduledJobsWorkerHandler')).toBe(1024);
    expect(memoryOf(defaults, 'ScheduledJobsSchedulerHandler')).toBe(512);
  }, 120_000);
});

describe('compute settings: bad values are refused naming the field', () => {
  const parse = (aws: unknown) => () => parseConfig({ ...STACK_CONFIG, aws } as never);

  it.each([
    [{ compute: 'fargate' }, /aws\.compute/],
    [{ memoryMb: { api: 127 } }, /aws\.memoryMb\.api.*at least 128/s],
    [{ memoryMb: { worker: 10_241 } }, /aws\.memoryMb\.worker.*at most 10240/s],
    [
      { managedInstances: { instanceTypes: ['m7g large'] } },
      /aws\.managedInstances\.instanceTypes\[0\].*m7g\.large/s,
    ],
    [{ managedInstances: { maxVCpuCount: 11 } }, /aws\.managedInstances\.maxVCpuCount/],
    [
      { managedInstances: { perExecutionEnvironmentMaxConcurrency: 1601 } },
      /perExecutionEnvironmentMaxConcurrency/,
    ],
    [{ managedInstances: { memoryGiBPerVCpu: 1.5 } }, /aws\.managedInstances\.memoryGiBPerVCpu/],
    [
      { managedInstances: { vpc: { subnetIds: ['vpc-1'], securityGroupIds: ['sg-0ccc3333'] } } },
      /subnetIds\[0\].*subnet id/s,
    ],
    [
      { managedInstances: { minExecutionEnvironments: 3, maxExecutionEnvironments: 2 } },
      /maxExecutionEnvironments.*at least minExecutionEnvironments/s,
    ],
  ])('%j', (aws, message) => {
    expect(parse(aws)).toThrow(message);
  });

  it('takes the edges: 128 and 10240 MB, 12 vCPUs, 1600 per environment, min = max environments', () => {
    expect(
      parse({
        memoryMb: { api: 128, worker: 10_240 },
        managedInstances: {
          maxVCpuCount: 12,
          perExecutionEnvironmentMaxConcurrency: 1600,
          minExecutionEnvironments: 2,
          maxExecutionEnvironments: 2,
        },
      }),
    ).not.toThrow();
  });

  it('refuses Managed Instances below one vCPU’s memory (2 GiB per vCPU by default), and a partial vCPU', () => {
    const at =
      (api: number, memoryGiBPerVCpu = 2) =>
      () =>
        synthStack(
          withAws({
            compute: 'managed-instances',
            memoryMb: { api },
            managedInstances: { memoryGiBPerVCpu },
          }),
        );
    expect(at(1024)).toThrow(/aws\.memoryMb\.api: 1024 MB .* use a multiple of 2048/);
    expect(at(3072)).toThrow(/use a multiple of 2048/);
    expect(at(4096, 4)).not.toThrow();
    expect(at(2048, 4)).toThrow(/use a multiple of 4096/);
  }, 120_000);
});
