import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

/** The period of every alarm. */
export const ALARM_PERIOD = Duration.minutes(5);

/** One alarm to create. */
export interface AlarmSpec {
  /** Construct id and the alarm's name after the prefix, e.g. `ExhaustedRate`. */
  name: string;
  /** What it means and what to do: the first thing the person paged reads. */
  description: string;
  metric: IMetric;
  /** Fires at this value or above. */
  threshold: number;
  /** Periods in a row that must breach. Default 1. */
  periods?: number;
  /**
   * A period without data: `NOT_BREACHING` (default: nothing happened, so the alarm returns to
   * OK), or `IGNORE` for a gauge reported only on use (a budget's state stays until its next value).
   */
  missingData?: TreatMissingData;
}

/** `Switchyard.ExhaustedRate`: the alarm's name, from the prefix the topic's grants are scoped to. */
export function alarmName(prefix: string, name: string): string {
  return `${prefix}.${name}`;
}

/**
 * The `aws:SourceArn` name pattern of every alarm named by `alarmName(prefix, …)`. The dot cannot
 * occur in a stack name, so `Switchyard.*` never matches another stack's alarms (`Switchyard-B…`).
 */
export function alarmNamePattern(prefix: string): string {
  if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(prefix))
    throw new Error(`alarm name prefix '${prefix}' must be a stack name (letters, digits, -)`);
  return alarmName(prefix, '*');
}

/**
 * Creates alarms that notify `topic` when they fire and again when they return to OK (so the
 * person paged hears that it is over), named `<prefix>.<name>`, and keeps them for the dashboard.
 */
export class AlarmFactory {
  readonly alarms: Record<string, Alarm> = {};
  private readonly action: SnsAction;

  constructor(
    private readonly scope: Construct,
    private readonly prefix: string,
    topic: ITopic,
  ) {
    this.action = new SnsAction(topic);
  }

  add(spec: AlarmSpec): Alarm {
    if (this.alarms[spec.name]) throw new Error(`two alarms named ${spec.name}`);
    const periods = spec.periods ?? 1;
    const alarm = new Alarm(this.scope, `${spec.name}Alarm`, {
      alarmName: alarmName(this.prefix, spec.name),
      alarmDescription: spec.description,
      metric: spec.metric,
      threshold: spec.threshold,
      evaluationPeriods: periods,
      datapointsToAlarm: periods,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: spec.missingData ?? TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms[spec.name] = alarm;
    return alarm;
  }
}
