/**
 * Cost per million requests from measured figures and list prices ({@link PRICES}). Every
 * assumption that is not measured here is in {@link WORKLOAD}, with where it comes from.
 */
import type { HandlerFigures } from './measure-handler.js';
import { PRICES } from './prices.js';

export const WORKLOAD = {
  /** The AWS review's traffic (issue 30): 1 M chat requests a day, steady. */
  requestsPerDay: 1_000_000,
  /** Average time waiting on the upstream per request, ms (the review: ~630 ms at 1,024 MB). */
  upstreamWaitMs: 630,
  /** Requests that fall back once (the review: 3 %). */
  fallbackShare: 0.03,
  /** On-demand requests that meet a cold start (assumed 0.5 %; init is billed since August 2025). */
  coldStartShare: 0.005,
  /** Log bytes per request, one attempt, and added by a fallback (bench/log-bytes, issue 27 “after”). */
  logBytes: { oneAttempt: 1858.6, perFallback: 1070.5 },
  /** DynamoDB per attempt: one breaker Query (1 RRU) and one UpdateItem (1 WRU); per request 0.1 BatchGetItem (bench/log-bytes). */
  dynamoDb: { readsPerAttempt: 1, writesPerAttempt: 1, batchReadsPerRequest: 0.1 },
  /** One SSM GetParametersByPath per execution environment per chainCacheMs (30 s), decrypting 3 SecureStrings through KMS (bench/ssm-load). */
  ssm: { refreshSeconds: 30, secureStrings: 3 },
  /** Managed Instances: CPU % the scaling keeps, concurrency per 1-vCPU environment, environments kept (stack defaults). */
  managedInstances: { targetCpu: 0.6, perEnvironmentConcurrency: 256, minEnvironments: 2, minInstances: 2 },
  /** LiteLLM on Fargate, the AWS guidance's shape: 2 tasks of 1 vCPU and 2 GB, always on (not measured here). */
  fargate: { tasks: 2, vcpu: 1, gb: 2 },
} as const;

/** One row of the cost table, US$ per million requests. */
export interface CostRow {
  deployment: string;
  compute: number;
  requestFees: number;
  apiGateway: number;
  dynamoDb: number;
  logs: number;
  /** At WORKLOAD.requestsPerDay. */
  total: number;
  /** With the capacity fully used (Managed Instances at the CPU target), or undefined. */
  totalAtFullUse: number | undefined;
  /** SSM GetParametersByPath and KMS decrypts per million requests. */
  ssmCalls: number;
  kmsCalls: number;
  note: string;
}

const perMillionDays = () => WORKLOAD.requestsPerDay / 1e6;
const attempts = () => 1 + WORKLOAD.fallbackShare;

/** What every Lambda row shares: API Gateway, DynamoDB and log ingestion per million requests. */
function sharedPerMillion() {
  const d = WORKLOAD.dynamoDb;
  const reads = attempts() * d.readsPerAttempt + d.batchReadsPerRequest;
  const writes = attempts() * d.writesPerAttempt;
  const bytes = WORKLOAD.logBytes.oneAttempt + WORKLOAD.fallbackShare * WORKLOAD.logBytes.perFallback;
  return {
    apiGateway: 1e6 * PRICES.apiGatewayRestRequest.usd,
    dynamoDb: 1e6 * (reads * PRICES.dynamoDbRead.usd + writes * PRICES.dynamoDbWrite.usd),
    logs: ((1e6 * bytes) / 1e9) * PRICES.cloudWatchLogsIngestGb.usd,
  };
}

/** SSM and KMS calls per million requests for `environments` warm execution environments. */
function ssmCalls(environments: number) {
  const perDay = (environments * 86_400) / WORKLOAD.ssm.refreshSeconds;
  const ssm = perDay / perMillionDays();
  return { ssmCalls: ssm, kmsCalls: ssm * WORKLOAD.ssm.secureStrings };
}

/** On-demand Lambda at `memoryMb`, from the handler's figures at that memory's CPU share. */
export function onDemandRow(memoryMb: number, figures: HandlerFigures): CostRow {
  const gb = memoryMb / 1024;
  const seconds = (WORKLOAD.upstreamWaitMs + figures.wallMsPerRequest) / 1000;
  const initSeconds = figures.initMs / 1000;
  const compute = 1e6 * gb * PRICES.lambdaArmGbSecond.usd * (seconds + WORKLOAD.coldStartShare * initSeconds);
  const requestFees = 1e6 * PRICES.lambdaRequest.usd;
  const shared = sharedPerMillion();
  const rps = WORKLOAD.requestsPerDay / 86_400;
  const environments = Math.ceil(rps * seconds);
  const total = compute + requestFees + shared.apiGateway + shared.dynamoDb + shared.logs;
  return {
    deployment: `on-demand ${memoryMb} MB`,
    compute,
    requestFees,
    ...shared,
    total,
    totalAtFullUse: undefined,
    ...ssmCalls(environments),
    note: `${(seconds * 1000).toFixed(0)} ms billed per request`,
  };
}

/** Managed Instances on an instance type, from the handler's figures at one full vCPU. */
export function managedInstancesRow(
  instance: { name: string; vcpus: number; hourUsd: number },
  figures: HandlerFigures,
): CostRow {
  const m = WORKLOAD.managedInstances;
  const cpuSeconds = figures.cpuUsPerRequest / 1e6;
  // One 1-vCPU environment takes requests until its CPU target or its concurrency cap binds.
  const byCpu = m.targetCpu / cpuSeconds;
  const byConcurrency = m.perEnvironmentConcurrency / (WORKLOAD.upstreamWaitMs / 1000);
  const rpsPerVcpu = Math.min(byCpu, byConcurrency);
  const rps = WORKLOAD.requestsPerDay / 86_400;
  const vcpus = Math.max(rps / rpsPerVcpu, m.minEnvironments);
  const instances = Math.max(m.minInstances, Math.ceil(vcpus / instance.vcpus));
  const hourly = instance.hourUsd * (1 + PRICES.managedInstancesFee.usd);
  const compute = (instances * 24 * hourly) / perMillionDays();
  const requestFees = 1e6 * PRICES.lambdaRequest.usd;
  const shared = sharedPerMillion();
  const fixed = requestFees + shared.apiGateway + shared.dynamoDb + shared.logs;
  const fullUse = (1e6 * hourly) / (3600 * instance.vcpus * rpsPerVcpu);
  return {
    deployment: `Managed Instances ${instance.name}`,
    compute,
    requestFees,
    ...shared,
    total: compute + fixed,
    totalAtFullUse: fullUse + fixed,
    ...ssmCalls(Math.ceil(vcpus)),
    note: `${instances} instances; ${rpsPerVcpu.toFixed(0)} req/s per vCPU (${byCpu < byConcurrency ? 'CPU' : 'concurrency'}-bound)`,
  };
}

/** LiteLLM on Fargate, the guidance's fixed shape: compute only (ALB, Redis, its logs not included). */
export function fargateRow(): CostRow {
  const f = WORKLOAD.fargate;
  const hourly = f.tasks * (f.vcpu * PRICES.fargateArmVcpuHour.usd + f.gb * PRICES.fargateArmGbHour.usd);
  const compute = (24 * hourly) / perMillionDays();
  return {
    deployment: 'LiteLLM on Fargate (reference)',
    compute,
    requestFees: 0,
    apiGateway: 0,
    dynamoDb: 0,
    logs: 0,
    total: compute,
    totalAtFullUse: undefined,
    ssmCalls: 0,
    kmsCalls: 0,
    note: `${f.tasks} × ${f.vcpu} vCPU / ${f.gb} GB ARM tasks, compute only: ALB, Redis and logs not included`,
  };
}
