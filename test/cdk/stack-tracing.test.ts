import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../lambda/config/switchyard-config.js';
import { actionsOf, roleStatements, STACK_CONFIG, synthStack, withAws } from './stack-fixture.js';

const LAYER = 'arn:aws:lambda:us-east-1:901920570463:layer:aws-otel-nodejs-arm64-ver-1-30-2:1';
const API_ROLE = 'ApiFunctionRole';

let off: Template;
let on: Template;
let custom: Template;
beforeAll(() => {
  off = synthStack().template;
  on = synthStack(withAws({ tracing: { adotLayerArn: LAYER } })).template;
  custom = synthStack(
    withAws({
      tracing: {
        adotLayerArn: LAYER,
        execWrapper: '/opt/otel-instrument',
        collectorConfigUri: 's3://bucket.s3.us-east-1.amazonaws.com/collector.yaml',
      },
    }),
  ).template;
  // Three synths: more than the default hook timeout on a loaded machine.
}, 180_000);

const apiFunction = (template: Template) => {
  const found = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([id]) =>
    id.startsWith('ApiFunctionHandler'),
  );
  expect(found).toHaveLength(1);
  return (found[0]?.[1] as { Properties: Record<string, unknown> } | undefined)?.Properties ?? {};
};
const sendsTraces = (template: Template) =>
  roleStatements(template, API_ROLE).find((s) => actionsOf(s).includes('xray:PutTraceSegments'));

describe('Switchyard stack: traces through the ADOT layer (aws.tracing)', () => {
  it('adds no layer, no OTEL variable, no X-Ray tracing and no X-Ray grant by default', () => {
    const props = apiFunction(off);
    expect(props.Layers).toBeUndefined();
    expect(props.TracingConfig).toBeUndefined();
    expect(JSON.stringify((props.Environment as { Variables: object }).Variables)).not.toMatch(
      /OTEL|EXEC_WRAPPER/,
    );
    expect(sendsTraces(off)).toBeUndefined();
  });

  it('with adotLayerArn: the layer, its handler wrapper, OTEL_TRACES_EXPORTER=otlp and active tracing on the API function', () => {
    on.hasResourceProperties('AWS::Lambda::Function', {
      Layers: [LAYER],
      TracingConfig: { Mode: 'Active' },
      Environment: {
        Variables: Match.objectLike({
          AWS_LAMBDA_EXEC_WRAPPER: '/opt/otel-handler',
          OTEL_TRACES_EXPORTER: 'otlp',
          OTEL_SERVICE_NAME: 'Switchyard',
        }),
      },
    });
    expect(apiFunction(on).Layers).toEqual([LAYER]);
  });

  it('grants the API role exactly the two X-Ray actions that send traces', () => {
    expect(sendsTraces(on)).toMatchObject({
      Effect: 'Allow',
      Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
      Resource: '*',
    });
  });

  it("takes the layer's start-up script and the collector config from the config", () => {
    const variables = (apiFunction(custom).Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables).toMatchObject({
      AWS_LAMBDA_EXEC_WRAPPER: '/opt/otel-instrument',
      OPENTELEMETRY_COLLECTOR_CONFIG_URI: 's3://bucket.s3.us-east-1.amazonaws.com/collector.yaml',
    });
    expect(apiFunction(on).Environment).not.toMatchObject({
      Variables: { OPENTELEMETRY_COLLECTOR_CONFIG_URI: expect.anything() },
    });
  });

  it.each([
    ['a layer ARN that is not one', { adotLayerArn: 'aws-otel-nodejs' }, 'aws.tracing.adotLayerArn'],
    ['a wrapper outside /opt', { adotLayerArn: LAYER, execWrapper: '/tmp/x' }, 'aws.tracing.execWrapper'],
    ['an unknown field', { adotLayer: LAYER }, 'aws.tracing'],
  ])('refuses %s, naming the field', (_, tracing, field) => {
    expect(() => parseConfig({ ...STACK_CONFIG, aws: { tracing } })).toThrow(field);
  });
});
