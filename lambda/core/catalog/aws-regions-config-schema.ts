/**
 * The fields of the `aws` section for a deployment to more than one region
 * (docs/operations.md#a-second-region): the regions, a custom domain with Route 53 latency records
 * and health checks, where breaker state lives, and each region's model ids (inference profiles).
 * Read at synth time, and by the Lambda for its own region's model ids.
 */
import * as z from 'zod';
import { lazySchema, once } from '../lazy-schema.js';
import { chainName, name } from './config-fields.js';

/** An AWS region name such as `us-east-1` or `us-gov-west-1`. */
export const awsRegionName = lazySchema(() =>
  z.string().regex(/^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d{1,2}$/, 'must be an AWS region such as us-east-1'),
);

const hostName = lazySchema(() =>
  z
    .string()
    .max(253)
    .regex(
      /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
      'must be a DNS name such as llm.example.com',
    ),
);

/** The custom domain callers use in front of every region. */
export const awsDomainSchema = lazySchema(() =>
  z.strictObject({
    /** The Route 53 public hosted zone's id, e.g. `Z0123456789ABCDEFGHIJ`. */
    hostedZoneId: z
      .string()
      .regex(/^Z[A-Z0-9]{1,32}$/, 'must be a Route 53 hosted zone id such as Z0123456789ABC'),
    /** The hosted zone's name, e.g. `example.com`. */
    zoneName: hostName,
    /** The name callers use, inside the zone, e.g. `llm.example.com`. */
    name: hostName,
    /**
     * Per region, the ARN of an ACM certificate for `name` in that region (a regional API's custom
     * domain needs its certificate in its own region). Every deployed region needs one.
     */
    certificates: z.record(
      awsRegionName,
      z
        .string()
        .regex(
          /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[A-Za-z0-9-]+$/,
          'must be an ACM certificate ARN',
        ),
    ),
  }),
);

/** Where breaker, cooling and admission state lives when there are several regions. */
export const BREAKER_STATE_SCOPES = ['regional', 'global'] as const;

/** The region fields of `aws`; spread into the `aws` schema. `regionalModels` is applied by lambda/aws/regional-config.ts. */
export const awsRegionFields = once(() => ({
  /**
   * The regions to deploy to, one stack each; the first is the primary (it owns a global
   * table). Default: none, one stack in the CLI's region, exactly as before.
   */
  regions: z
    .array(awsRegionName)
    .min(1)
    .max(10)
    .refine((list) => new Set(list).size === list.length, 'must not name a region twice')
    .optional(),
  /** A custom domain with latency-based routing and a health check per region. Default: none. */
  domain: awsDomainSchema.optional(),
  /**
   * `regional`: each region keeps its own breaker table (breakers, cooling, admission counters,
   * the answer cache). `global`: one DynamoDB global table replicated to every region, so a
   * breaker one region opens is open in all (after replication). Default `regional`
   * (docs/design.md#more-than-one-region says why).
   */
  breakerState: z.enum(BREAKER_STATE_SCOPES).default('regional'),
  /**
   * Per region, the upstream model id a model key uses there (for Bedrock, the inference profile
   * of the region's geography, such as `eu.meta.llama3-3-70b-instruct-v1:0`). In a multi-region
   * deployment every Bedrock provider calls its own stack's region; a model without an entry
   * keeps its configured id. Default none.
   */
  regionalModels: z.record(awsRegionName, z.record(chainName, name)).default({}),
}));

/** The cross-field rules of the region fields, with the path of the field at fault. */
export function checkRegionFields(
  aws: {
    regions?: string[] | undefined;
    domain?: z.infer<typeof awsDomainSchema> | undefined;
    breakerState: (typeof BREAKER_STATE_SCOPES)[number];
    regionalModels: Record<string, Record<string, string>>;
  },
  issue: (path: (string | number)[], message: string) => void,
): void {
  const regions = aws.regions ?? [];
  if (aws.domain) {
    if (regions.length === 0) issue(['domain'], 'needs aws.regions: the regions the domain routes to');
    if (!aws.domain.name.endsWith(`.${aws.domain.zoneName}`) && aws.domain.name !== aws.domain.zoneName)
      issue(['domain', 'name'], `must be inside the zone '${aws.domain.zoneName}'`);
    for (const region of regions) {
      const arn = aws.domain.certificates[region];
      if (!arn) issue(['domain', 'certificates', region], 'every deployed region needs a certificate');
      else if (arn.split(':')[3] !== region)
        issue(['domain', 'certificates', region], `must be a certificate in ${region}`);
    }
  }
  if (aws.breakerState === 'global' && regions.length < 2)
    issue(['breakerState'], "'global' needs at least two aws.regions");
  for (const region of Object.keys(aws.regionalModels)) {
    if (!regions.includes(region)) issue(['regionalModels', region], `'${region}' is not one of aws.regions`);
  }
}
