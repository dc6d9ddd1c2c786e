/**
 * The `aws` fields that say what the functions run on: the compute mode of the API function
 * (on-demand Lambda, or Lambda Managed Instances on a capacity provider) and each function's
 * memory. Read at synth time only (docs/configuration.md#compute-and-memory).
 */
import * as z from 'zod';
import { lazySchema, once } from '../lazy-schema.js';

/** Lambda's memory range, in MB. */
const memory = lazySchema(() =>
  z
    .number()
    .int()
    .min(128, 'must be at least 128 (MB): Lambda’s smallest size')
    .max(10_240, 'must be at most 10240 (MB): Lambda’s largest size'),
);

/**
 * Memory of each function in MB (128–10240). On-demand Lambda gives CPU in proportion to memory
 * (1,769 MB = one vCPU), and bills GB-seconds, so an I/O-bound function pays for memory it waits
 * in: `npm run bench:cost` measures init and CPU per request at each size (docs/design.md#right-sized-functions).
 */
export const awsMemorySchema = lazySchema(() =>
  z.strictObject({
    /**
     * The API function. Default 1024 on-demand (bench:cost measures init and CPU per request per size);
     * with `compute: "managed-instances"` the default is `managedInstances.memoryGiBPerVCpu` × 1024
     * (one vCPU), and a smaller value is refused.
     */
    api: memory.optional(),
    /** The job worker. Default 1024. */
    worker: memory.default(1024),
    /** The scheduler (it only enqueues). Default 512. */
    scheduler: memory.default(512),
  }),
);

/** An EC2 instance type such as `m7g.large` (arm64: the functions are arm64). */
const instanceType = lazySchema(() =>
  z.string().regex(/^[a-z][a-z0-9-]*\.[a-z0-9]+$/, 'must be an EC2 instance type such as m7g.large'),
);

/** Subnets and security groups of an existing VPC the capacity provider launches instances in. */
export const managedInstancesVpcSchema = lazySchema(() =>
  z.strictObject({
    /** 1–16 subnet ids (`subnet-…`), private with a route to the internet (NAT): the gateway calls providers. */
    subnetIds: z
      .array(z.string().regex(/^subnet-[0-9a-f]{8,17}$/, 'must be a subnet id such as subnet-0abc12345'))
      .min(1)
      .max(16),
    /** 1–5 security group ids (`sg-…`) allowing outbound HTTPS; no inbound rule is needed. */
    securityGroupIds: z
      .array(z.string().regex(/^sg-[0-9a-f]{8,17}$/, 'must be a security group id such as sg-0abc12345'))
      .min(1)
      .max(5),
  }),
);

/**
 * Lambda Managed Instances for the API function (`compute: "managed-instances"`): a capacity
 * provider on EC2 instances in a VPC, many concurrent invocations per execution environment.
 */
export const managedInstancesSchema = lazySchema(() =>
  z
    .strictObject({
      /**
       * The VPC to launch instances in. Default: the stack creates one (two AZs, one NAT gateway,
       * a DynamoDB gateway endpoint so breaker traffic does not cross the NAT).
       */
      vpc: managedInstancesVpcSchema.optional(),
      /**
       * Instance types the capacity provider may launch (arm64). Default `["m7g.large", "m7g.xlarge"]`:
       * 4 GiB per vCPU leaves room for the 2 GiB-per-vCPU execution environments plus the instance's own share.
       */
      instanceTypes: z.array(instanceType).min(1).max(20).default(['m7g.large', 'm7g.xlarge']),
      /** Most vCPUs the capacity provider scales to (12–15000). Default 48: a spend ceiling, not a target. */
      maxVCpuCount: z.number().int().min(12).max(15_000).default(48),
      /** Average CPU % the capacity provider's scaling keeps instances at (10–90). Default 60. */
      targetCpuPercent: z.number().int().min(10).max(90).default(60),
      /**
       * Concurrent invocations one execution environment takes (1–1600). Default 256: above the
       * requests one vCPU holds in flight at the CPU target for the measured CPU per request
       * (bench:cost), so scaling follows CPU (docs/design.md#managed-instances).
       */
      perExecutionEnvironmentMaxConcurrency: z.number().int().min(1).max(1600).default(256),
      /** Memory per vCPU of an execution environment, in GiB (2–8). Default 2: the handler is I/O-bound. */
      memoryGiBPerVCpu: z.number().min(2).max(8).default(2),
      /** Execution environments kept for the published version, at least (0–15000). Default 2 (two AZs). */
      minExecutionEnvironments: z.number().int().min(0).max(15_000).default(2),
      /** Execution environments at most (1–15000). Default: none (bounded by `maxVCpuCount`). */
      maxExecutionEnvironments: z.number().int().min(1).max(15_000).optional(),
    })
    .refine(
      (m) =>
        m.maxExecutionEnvironments === undefined || m.maxExecutionEnvironments >= m.minExecutionEnvironments,
      {
        message: 'must be at least minExecutionEnvironments (default 2)',
        path: ['maxExecutionEnvironments'],
      },
    ),
);

/** The compute fields of `aws`; spread into the `aws` schema. */
export const awsComputeFields = once(() => ({
  /**
   * What the API function runs on. `"on-demand"` (default): Lambda as always, one request per
   * execution environment, billed per ms. `"managed-instances"`: a capacity provider
   * ({@link managedInstancesSchema}), billed per instance: cheaper for steady traffic, slower to
   * absorb a spike (docs/operations.md#compute-modes). The worker and scheduler stay on-demand.
   */
  compute: z.enum(['on-demand', 'managed-instances']).default('on-demand'),
  /** Settings of `compute: "managed-instances"`; every field has a default. */
  managedInstances: managedInstancesSchema.prefault({}),
  /** Memory of each function: {@link awsMemorySchema}. */
  memoryMb: awsMemorySchema.prefault({}),
}));
