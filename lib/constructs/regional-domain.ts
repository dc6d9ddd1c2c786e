import { Duration, Stack } from 'aws-cdk-lib';
import {
  BasePathMapping,
  DomainName,
  EndpointType,
  type RestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { ARecord, HealthCheck, HealthCheckType, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import type { AwsConfig } from '../../lambda/core/catalog/aws-config-schema.js';
import { API_STAGE_NAME } from './switchyard-api.js';

export interface RegionalDomainProps {
  api: RestApi;
  domain: NonNullable<AwsConfig['domain']>;
  /** The stack's region: its certificate, its latency record. */
  region: string;
}

/** Seconds between two checks of one Route 53 checker, and failures in a row that mark a region unhealthy. */
export const HEALTH_CHECK = Object.freeze({ intervalSeconds: 10, failureThreshold: 3 });

/**
 * This region's share of the custom domain (docs/operations.md#a-second-region): the API under
 * `domain.name` with the region's certificate, a Route 53 health check on the region's own
 * execute-api endpoint (`GET /prod/healthz`, HTTPS, every 10 s, unhealthy after 3 failures), and a
 * latency-based alias record for `domain.name` that Route 53 answers only while that check passes.
 * Every region adds its own record (set identifier = the region) to the same hosted zone, so a
 * caller resolves to the nearest healthy region.
 */
export class RegionalDomain extends Construct {
  readonly healthCheck: HealthCheck;
  readonly domainName: DomainName;

  constructor(scope: Construct, id: string, props: RegionalDomainProps) {
    super(scope, id);
    const { domain, region, api } = props;
    const certificateArn = domain.certificates[region];
    if (!certificateArn)
      throw new Error(`aws.domain.certificates.${region}: every deployed region needs a certificate`);
    this.domainName = new DomainName(this, 'DomainName', {
      domainName: domain.name,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    new BasePathMapping(this, 'Mapping', {
      domainName: this.domainName,
      restApi: api,
      stage: api.deploymentStage,
    });
    // The region's own endpoint, not the shared name: the check must see this region alone.
    this.healthCheck = new HealthCheck(this, 'HealthCheck', {
      type: HealthCheckType.HTTPS,
      fqdn: `${api.restApiId}.execute-api.${region}.${Stack.of(this).urlSuffix}`,
      port: 443,
      resourcePath: `/${API_STAGE_NAME}/healthz`,
      requestInterval: Duration.seconds(HEALTH_CHECK.intervalSeconds),
      failureThreshold: HEALTH_CHECK.failureThreshold,
      enableSNI: true,
    });
    const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', {
      hostedZoneId: domain.hostedZoneId,
      zoneName: domain.zoneName,
    });
    new ARecord(this, 'LatencyRecord', {
      zone,
      recordName: domain.name,
      target: RecordTarget.fromAlias(new ApiGatewayDomain(this.domainName)),
      region,
      setIdentifier: region,
      healthCheck: this.healthCheck,
    });
  }
}
