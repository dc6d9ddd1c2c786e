/**
 * The fields of the `aws` section that say which deployment this is and how it is deployed: its
 * stage (every physical name derives from it), whether it is production, gradual deploys, and the
 * explicit permission to ship loopback or plain-http provider URLs. Read at synth time only.
 */
import * as z from 'zod';
import { lazySchema, once } from '../lazy-schema.js';

/**
 * A stage name: lowercase letters, digits and single hyphens, starting with a letter, at most 20
 * characters, so that every name derived from it (`Switchyard-<stage>-jobs-dlq`, 80 characters at
 * most for SQS) stays within AWS's limits.
 */
export const stageName = lazySchema(() =>
  z
    .string()
    .regex(
      /^[a-z](?:[a-z0-9]|-(?=[a-z0-9])){0,19}$/,
      'must be 1–20 lowercase letters, digits or single hyphens, starting with a letter (e.g. staging)',
    ),
);

/** A gradual deploy of the API function: a canary share of traffic first, then all of it. */
export const awsDeploySchema = lazySchema(() =>
  z.strictObject({
    /** % of API traffic the new version takes first (1–99). */
    canaryPercent: z.number().int().min(1).max(99),
    /**
     * Minutes the canary runs before the rest of the traffic moves (1–2880). CodeDeploy rolls back
     * if an API alarm fires meanwhile; the 5XX-rate alarm needs two 5-minute periods, so 10 or more
     * gives every API alarm its chance. Default 10.
     */
    canaryMinutes: z.number().int().min(1).max(2880).default(10),
  }),
);

/** The deployment fields of `aws`; spread into the `aws` schema. */
export const awsDeployFields = once(() => ({
  /**
   * This deployment's stage. Default: none, and the names stay exactly as they always were (stack
   * `Switchyard`, SSM prefix `/switchyard`). With a stage the stack is `Switchyard-<stage>`, every
   * named resource follows the stack name, the SSM prefix defaults to `/switchyard-<stage>` and the
   * metrics go to the namespace `Switchyard/<stage>`, so stages share an account and region.
   */
  stage: stageName.optional(),
  /** A production stage: the stack gets termination protection. Default false. */
  production: z.boolean().default(false),
  /**
   * Deploy even though a provider's URL is plain http:// or points at this machine (loopback):
   * only for a stack whose upstreams really are there (a test stack with fakes). Default false.
   */
  allowInsecureBaseURLs: z.boolean().default(false),
  /**
   * API Gateway access logs and error-level execution logs for the stage. They need the account's
   * API Gateway CloudWatch role, which is one setting per account and region shared by every API:
   * the stack never sets it (docs/operations.md#api-gateway-logs says how). Default false.
   */
  apiGatewayLogs: z.boolean().default(false),
  /** Gradual deploys of the API function (CodeDeploy canary). Default: none (all traffic at once). */
  deploy: awsDeploySchema.optional(),
}));

/** The SSM prefix of a stage when the config names none: `/switchyard`, or `/switchyard-<stage>`. */
export function defaultSsmPrefix(stage: string | undefined): string {
  return stage === undefined ? '/switchyard' : `/switchyard-${stage}`;
}
