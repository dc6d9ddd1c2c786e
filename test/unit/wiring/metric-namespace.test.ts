import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lambda/core/errors.js';
import { metricNamespaceOf } from '../../../lambda/wiring/aws-container.js';

describe('the namespace the Lambdas write their metrics to', () => {
  it("is the stage's namespace the stack sets, so its alarms see the metrics", () => {
    expect(metricNamespaceOf({ POWERTOOLS_METRICS_NAMESPACE: 'Switchyard/staging' })).toBe(
      'Switchyard/staging',
    );
  });

  it('is Switchyard when the stack sets none (a deployment without a stage)', () => {
    expect(metricNamespaceOf({})).toBe('Switchyard');
  });

  it('refuses a value that is no CloudWatch namespace, naming the variable', () => {
    expect(() => metricNamespaceOf({ POWERTOOLS_METRICS_NAMESPACE: 'a b' })).toThrow(ConfigError);
    expect(() => metricNamespaceOf({ POWERTOOLS_METRICS_NAMESPACE: 'a b' })).toThrow(
      /POWERTOOLS_METRICS_NAMESPACE/,
    );
  });
});
