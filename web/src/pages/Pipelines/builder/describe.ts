/** Steps and triggers in words (the read-only view, the list). */
import type { Pipeline } from '../../../api/gen/types.gen';
import type { Step } from './draft';

const OPERATORS: Record<string, string> = {
  eq: 'equals',
  ne: 'does not equal',
  lt: 'is less than',
  le: 'is at most',
  gt: 'is greater than',
  ge: 'is at least',
  contains: 'contains',
};

function names(list: string[] | undefined): string {
  return list && list.length ? list.join(', ') : 'all columns';
}

export function describeStep(step: Step): string {
  switch (step.op) {
    case 'select':
      return `Keep the columns ${names(step.columns)}`;
    case 'rename':
      return `Rename ${Object.entries(step.mapping).map(([from, to]) => `${from} to ${to}`).join(', ')}`;
    case 'filter':
      return `Keep rows where ${step.column} ${OPERATORS[step.operator] ?? step.operator} ${JSON.stringify(step.value)}`;
    case 'sort':
      return `Sort by ${names(step.columns)}${step.descending ? ', descending' : ''}`;
    case 'dedupe':
      return `Remove rows equal on ${names(step.columns)}`;
    case 'limit':
      return `Keep the first ${step.count} rows`;
    case 'cast':
      return `Change ${step.column} to ${step.type}`;
    case 'aggregate': {
      const results = step.aggregates.map((item) => `${item.function}${item.column ? ` of ${item.column}` : ''}${item.as ? ` as ${item.as}` : ''}`);
      const by = step.group_by && step.group_by.length ? ` by ${step.group_by.join(', ')}` : '';
      return `Aggregate${by}: ${results.join(', ')}`;
    }
    case 'join':
      return `Join dataset #${step.dataset_id}${step.version ? ` version ${step.version}` : ''} on ${names(step.on)} (${step.how ?? 'inner'})`;
    case 'sql':
      return 'SQL query';
  }
}

export function describeTrigger(trigger: Pipeline['trigger']): string {
  if (!trigger) return 'None';
  if ('cron' in trigger) return `Schedule ${trigger.cron} (${trigger.timezone ?? 'UTC'})`;
  return 'On a new version of an input';
}

export function formatName(format: Pipeline['output_format']): string {
  return { csv: 'CSV', parquet: 'Parquet', jsonl: 'JSON lines' }[format] ?? format;
}
