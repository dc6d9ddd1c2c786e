/**
 * Public list prices the cost table uses: US East (N. Virginia), on-demand, no free tier, no
 * Savings Plan. Read on 2026-12-02 through the session's search tool from the pages named in
 * `source`; where a page is a third party quoting the AWS price list, it says so. Change a price
 * here and `npm run bench:cost` recomputes every row; nothing else holds a price.
 */
export interface ListPrice {
  /** US$ per `unit`. */
  usd: number;
  unit: string;
  source: string;
}

/** The date the prices below were read. */
export const PRICES_READ_ON = '2026-12-02';

export const PRICES = {
  lambdaRequest: {
    usd: 0.2 / 1e6,
    unit: 'request',
    source:
      'aws.amazon.com/lambda/pricing (and docs.aws.amazon.com/whitepapers/latest/how-aws-pricing-works/lambda.html): $0.20 per 1 M requests',
  },
  lambdaArmGbSecond: {
    usd: 0.0000133334,
    unit: 'GB-second (arm64, first tier)',
    source:
      'aws.amazon.com/lambda/pricing, Arm tab: $0.0000133334 per GB-s (the page read through the search tool did not render the table; this is the published first-tier Arm rate, 20 % under x86’s $0.0000166667)',
  },
  managedInstancesFee: {
    usd: 0.15,
    unit: 'fraction of the EC2 on-demand price (management fee)',
    source:
      'packetsensei.com “When to use AWS Lambda Managed Instances” quoting the Lambda pricing page: ~15 % of the EC2 price, plus $0.20 per 1 M requests',
  },
  ec2M7gLargeHour: {
    usd: 0.0816,
    unit: 'instance-hour, m7g.large (2 vCPU, 8 GiB), Linux',
    source: 'factualminds.com “Amazon EC2 On-Demand Pricing … (2026)”, us-east-1 June 2026',
  },
  ec2M7gXlargeHour: {
    usd: 0.1632,
    unit: 'instance-hour, m7g.xlarge (4 vCPU, 16 GiB), Linux',
    source: 'twice m7g.large: EC2 prices within a family scale linearly with size',
  },
  fargateArmVcpuHour: {
    usd: 0.03238,
    unit: 'vCPU-hour, Linux/ARM',
    source: 'vantage.sh/blog/fargate-pricing, us-east-1',
  },
  fargateArmGbHour: {
    usd: 0.00356,
    unit: 'GB-hour, Linux/ARM',
    source: 'vantage.sh/blog/fargate-pricing, us-east-1',
  },
  dynamoDbWrite: {
    usd: 0.625 / 1e6,
    unit: 'write request unit (on-demand)',
    source: 'airbyte.com “Amazon DynamoDB Pricing” after the November 2024 reduction: $0.625 per 1 M WRU',
  },
  dynamoDbRead: {
    usd: 0.125 / 1e6,
    unit: 'read request unit (on-demand)',
    source: 'airbyte.com “Amazon DynamoDB Pricing”: $0.125 per 1 M RRU',
  },
  cloudWatchLogsIngestGb: {
    usd: 0.5,
    unit: 'GB ingested (standard class)',
    source: 'hykell.com “Amazon CloudWatch Logs pricing”, us-east-1: $0.50 per GB',
  },
  apiGatewayRestRequest: {
    usd: 3.5 / 1e6,
    unit: 'REST API request (first 333 M)',
    source: 'go-cloud.io “AWS API Gateway Pricing”: REST $3.50 per 1 M',
  },
} satisfies Record<string, ListPrice>;
