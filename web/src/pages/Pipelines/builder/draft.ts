/**
 * The builder's working copy of a pipeline: what the form holds while a person types
 * (lists as the text typed, numbers as text), and the request body made from it.
 */
import type {
  AggregateStep,
  CastStep,
  FilterStep,
  JoinStep,
  Pipeline,
  PipelineCreate,
} from '../../../api/gen/types.gen';

export type Step = Pipeline['steps'][number];
export type StepOp = Step['op'];
export type Trigger = Pipeline['trigger'];
export type OutputFormat = Pipeline['output_format'];

export const STEP_OPS: { op: StepOp; label: string }[] = [
  { op: 'select', label: 'Select columns' },
  { op: 'rename', label: 'Rename columns' },
  { op: 'filter', label: 'Filter rows' },
  { op: 'sort', label: 'Sort' },
  { op: 'dedupe', label: 'Remove duplicates' },
  { op: 'limit', label: 'Limit rows' },
  { op: 'cast', label: 'Change a type' },
  { op: 'aggregate', label: 'Aggregate' },
  { op: 'join', label: 'Join a dataset' },
  { op: 'sql', label: 'SQL' },
];

export function opLabel(op: StepOp): string {
  return STEP_OPS.find((item) => item.op === op)?.label ?? op;
}

export interface RenamePair {
  from: string;
  to: string;
}

export interface AggregateDraft {
  function: AggregateStep['aggregates'][number]['function'];
  column: string;
  as: string;
}

/** One step as typed. Only the fields of its `op` are sent. */
export interface StepDraft {
  key: string;
  op: StepOp;
  columns: string;
  column: string;
  operator: FilterStep['operator'];
  value: string;
  /** A filter value that was a number stays one while its text reads as one. */
  numeric: boolean;
  descending: boolean;
  count: string;
  type: CastStep['type'];
  pairs: RenamePair[];
  groupBy: string;
  aggregates: AggregateDraft[];
  datasetId: number | null;
  version: string;
  how: NonNullable<JoinStep['how']>;
  query: string;
}

export type TriggerKind = 'none' | 'new_version' | 'schedule';

export interface PipelineDraft {
  name: string;
  description: string;
  sourceDatasetId: number | null;
  /** '' = the current version when each run starts; else a pinned number. */
  sourceVersion: string;
  steps: StepDraft[];
  outputName: string;
  outputFormat: OutputFormat;
  trigger: TriggerKind;
  cron: string;
  timezone: string;
}

let nextKey = 0;
function newKey(): string {
  nextKey += 1;
  return `step-${nextKey}`;
}

export function emptyStep(op: StepOp): StepDraft {
  return {
    key: newKey(),
    op,
    columns: '',
    column: '',
    operator: 'eq',
    value: '',
    numeric: false,
    descending: false,
    count: op === 'limit' ? '10' : '',
    type: 'string',
    pairs: [{ from: '', to: '' }],
    groupBy: '',
    aggregates: [{ function: 'count', column: '', as: '' }],
    datasetId: null,
    version: '',
    how: 'inner',
    query: op === 'sql' ? 'SELECT * FROM input' : '',
  };
}

export function emptyPipeline(): PipelineDraft {
  return {
    name: '',
    description: '',
    sourceDatasetId: null,
    sourceVersion: '',
    steps: [],
    outputName: '',
    outputFormat: 'csv',
    trigger: 'none',
    cron: '',
    timezone: browserTimeZone(),
  };
}

/** A pipeline's source and steps proposed elsewhere (the SQL console's query of one dataset). */
export interface ProposedPipeline {
  source_dataset_id: number;
  steps: Step[];
}

export function draftFromProposal(proposal: ProposedPipeline): PipelineDraft {
  return { ...emptyPipeline(), sourceDatasetId: proposal.source_dataset_id, steps: proposal.steps.map(stepFromApi) };
}

export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** "a, b , c" → ["a", "b", "c"] (empty parts dropped). */
export function splitNames(text: string): string[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

function joinNames(names: string[] | undefined): string {
  return (names ?? []).join(', ');
}

export function stepFromApi(step: Step): StepDraft {
  const draft = emptyStep(step.op);
  switch (step.op) {
    case 'select':
    case 'sort':
      return { ...draft, columns: joinNames(step.columns), descending: step.op === 'sort' && !!step.descending };
    case 'dedupe':
      return { ...draft, columns: joinNames(step.columns) };
    case 'rename':
      return { ...draft, pairs: Object.entries(step.mapping).map(([from, to]) => ({ from, to })) };
    case 'filter':
      return {
        ...draft,
        column: step.column,
        operator: step.operator,
        value: String(step.value),
        numeric: typeof step.value === 'number',
      };
    case 'limit':
      return { ...draft, count: String(step.count) };
    case 'cast':
      return { ...draft, column: step.column, type: step.type };
    case 'aggregate':
      return {
        ...draft,
        groupBy: joinNames(step.group_by),
        aggregates: step.aggregates.map((item) => ({
          function: item.function,
          column: item.column ?? '',
          as: item.as ?? '',
        })),
      };
    case 'join':
      return {
        ...draft,
        datasetId: step.dataset_id,
        columns: joinNames(step.on),
        how: step.how ?? 'inner',
        version: step.version === undefined ? '' : String(step.version),
      };
    case 'sql':
      return { ...draft, query: step.query };
  }
}

/** A number typed as text: sent as a number when it reads as one, else as typed (the
 *  service says what is wrong with it, at its field). */
function numberOrText(text: string): number {
  const trimmed = text.trim();
  return (trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed) as number;
}

export function stepToApi(draft: StepDraft): Step {
  switch (draft.op) {
    case 'select':
      return { op: 'select', columns: splitNames(draft.columns) };
    case 'sort':
      return { op: 'sort', columns: splitNames(draft.columns), descending: draft.descending };
    case 'dedupe': {
      const columns = splitNames(draft.columns);
      return columns.length ? { op: 'dedupe', columns } : { op: 'dedupe' };
    }
    case 'rename':
      return {
        op: 'rename',
        mapping: Object.fromEntries(
          draft.pairs.filter((pair) => pair.from.trim()).map((pair) => [pair.from.trim(), pair.to.trim()]),
        ),
      };
    case 'filter': {
      const asNumber = Number(draft.value.trim());
      const value = draft.numeric && draft.value.trim() !== '' && Number.isFinite(asNumber) ? asNumber : draft.value;
      return { op: 'filter', column: draft.column.trim(), operator: draft.operator, value };
    }
    case 'limit':
      return { op: 'limit', count: numberOrText(draft.count) };
    case 'cast':
      return { op: 'cast', column: draft.column.trim(), type: draft.type };
    case 'aggregate':
      return aggregateToApi(draft);
    case 'join': {
      const join: JoinStep = {
        op: 'join',
        dataset_id: draft.datasetId as number,
        on: splitNames(draft.columns),
        how: draft.how,
      };
      if (draft.version.trim()) join.version = numberOrText(draft.version);
      return join;
    }
    case 'sql':
      return { op: 'sql', query: draft.query };
  }
}

function aggregateToApi(draft: StepDraft): AggregateStep {
  const aggregates = draft.aggregates.map((item) => {
    const column = item.column.trim();
    const as = item.as.trim();
    const one: Record<string, string> = { function: item.function };
    if (column || item.function !== 'count') one.column = column;
    if (as) one.as = as;
    return one as unknown as AggregateStep['aggregates'][number];
  });
  const groupBy = splitNames(draft.groupBy);
  return { op: 'aggregate', group_by: groupBy, aggregates };
}

export function triggerToApi(draft: PipelineDraft): Trigger {
  if (draft.trigger === 'new_version') return { on: 'new_version' };
  if (draft.trigger === 'schedule') {
    const timezone = draft.timezone.trim();
    return timezone ? { cron: draft.cron.trim(), timezone } : { cron: draft.cron.trim() };
  }
  return null;
}

export function draftFromPipeline(pipeline: Pipeline): PipelineDraft {
  const trigger = pipeline.trigger;
  const schedule = trigger && 'cron' in trigger ? trigger : null;
  return {
    name: pipeline.name,
    description: pipeline.description,
    sourceDatasetId: pipeline.source_dataset_id,
    sourceVersion: pipeline.source_version === null ? '' : String(pipeline.source_version),
    steps: pipeline.steps.map(stepFromApi),
    outputName: pipeline.output_dataset_name,
    outputFormat: pipeline.output_format,
    trigger: schedule ? 'schedule' : trigger ? 'new_version' : 'none',
    cron: schedule?.cron ?? '',
    timezone: schedule?.timezone ?? browserTimeZone(),
  };
}

/** The create (or PATCH) body. */
export function draftToBody(draft: PipelineDraft): PipelineCreate {
  return {
    name: draft.name,
    description: draft.description,
    source_dataset_id: draft.sourceDatasetId as number,
    source_version: draft.sourceVersion.trim() ? numberOrText(draft.sourceVersion) : null,
    steps: draft.steps.map(stepToApi),
    output_dataset_name: draft.outputName,
    output_format: draft.outputFormat,
    trigger: triggerToApi(draft),
  };
}

/** Field names (in the body) a step's form shows, so other problems are listed above. */
export function stepFieldNames(draft: StepDraft, index: number): string[] {
  const names: Record<StepOp, string[]> = {
    select: ['columns'],
    rename: ['mapping'],
    filter: ['column', 'operator', 'value'],
    sort: ['columns', 'descending'],
    dedupe: ['columns'],
    limit: ['count'],
    cast: ['column', 'type'],
    aggregate: ['group_by', 'aggregates'],
    join: ['dataset_id', 'on', 'how', 'version'],
    sql: ['query'],
  };
  const fields = names[draft.op].map((name) => `steps.${index}.${name}`);
  if (draft.op === 'aggregate') {
    draft.aggregates.forEach((_, j) => {
      fields.push(`steps.${index}.aggregates.${j}.function`, `steps.${index}.aggregates.${j}.column`, `steps.${index}.aggregates.${j}.as`);
    });
  }
  return fields;
}
