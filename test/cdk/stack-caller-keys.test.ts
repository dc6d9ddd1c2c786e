import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, arnText, roleStatements, synthStack } from './stack-fixture.js';

let template: Template;
let tableId: string;
beforeAll(() => {
  template = synthStack().template;
  const tables = template.findResources('AWS::DynamoDB::Table', {
    Properties: { KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }] },
  });
  tableId = Object.keys(tables).find((id) => id.startsWith('CallerKeys')) ?? '';
});

/** Every statement of every role that names the caller-keys table. */
const statementsOnTable = (role: string) =>
  roleStatements(template, role).filter((s) => arnText(s.Resource).includes(tableId));

describe('Switchyard stack: caller keys in their own table', () => {
  it('creates the caller-keys table: string partition key id, on demand, recoverable, protected, kept', () => {
    expect(tableId).not.toBe('');
    template.hasResource('AWS::DynamoDB::Table', {
      Properties: {
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('lets the API role GetItem on it and nothing else: no write, no Scan, no Query', () => {
    const statements = statementsOnTable('ApiFunctionRole');
    expect(statements.map((s) => s.Sid)).toEqual(['ReadCallerKeys']);
    expect(statements.flatMap(actionsOf)).toEqual(['dynamodb:GetItem']);
    expect([statements[0]?.Resource].flat()).toHaveLength(1);
  });

  it('gives the worker, which serves no caller, no access to it', () => {
    expect(statementsOnTable('ScheduledJobsWorkerRole')).toEqual([]);
  });

  it('names the table to the API as SWITCHYARD_KEYS_TABLE and in the CallerKeysTableName output', () => {
    const apis = template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { SWITCHYARD_KEYS_TABLE: { Ref: tableId } } } },
    });
    expect(Object.keys(apis)).toHaveLength(1);
    expect(Object.keys(apis)[0]).toMatch(/^ApiFunction/);
    template.hasOutput('CallerKeysTableName', { Value: { Ref: tableId } });
  });
});
