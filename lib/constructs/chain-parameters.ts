import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { chainParameterName } from '../../lambda/aws/ssm-chains.js';

export interface ChainParametersProps {
  ssmPrefix: string;
  /** Pipeline name → the chain from the config, the parameter's first value. */
  chains: Record<string, string>;
}

/**
 * One SSM parameter per pipeline, `<prefix>/chains/<pipeline>`: the hot-reroute knob. Operators
 * edit it (`switchyard chain set`, or the AWS CLI) without a deploy; SSM keeps the history.
 */
export class ChainParameters extends Construct {
  readonly parameters: StringParameter[];

  constructor(scope: Construct, id: string, props: ChainParametersProps) {
    super(scope, id);
    const ids = constructIdsFor(Object.keys(props.chains), 'pipelines');
    this.parameters = Object.entries(props.chains).map(
      ([pipeline, chain]) =>
        new StringParameter(this, ids.get(pipeline) ?? pipeline, {
          parameterName: chainParameterName(props.ssmPrefix, pipeline),
          stringValue: chain,
          description: `Switchyard chain of pipeline '${pipeline}' (edit to reroute; the config chain applies if this resolves to no model)`,
        }),
    );
  }
}

/** `comment-filter` → `CommentFilter`: stable PascalCase ids, so renaming nothing replaces nothing. */
export function pipelineConstructId(pipeline: string): string {
  const words = pipeline.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((w) => w[0]?.toUpperCase() + w.slice(1)).join('') || 'Pipeline';
}

/**
 * PascalCase construct ids for a set of names, refusing two names that would share one (`a-b` and
 * `a_b`): a clear synth error instead of CDK's duplicate-id failure.
 */
export function constructIdsFor(names: readonly string[], what: string): Map<string, string> {
  const ids = new Map<string, string>();
  const owners = new Map<string, string>();
  for (const name of names) {
    const id = pipelineConstructId(name);
    const other = owners.get(id);
    if (other !== undefined)
      throw new Error(`${what} '${other}' and '${name}' would share the construct id '${id}'; rename one`);
    owners.set(id, name);
    ids.set(name, id);
  }
  return ids;
}
