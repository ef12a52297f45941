import { describe, expect, it } from 'vitest';

import type { Pipeline } from '../../../api/gen/types.gen';
import { draftFromPipeline, draftToBody, stepFromApi, stepToApi } from './draft';
import type { Step } from './draft';

const STEPS: Step[] = [
  { op: 'select', columns: ['city', 'population'] },
  { op: 'rename', mapping: { population: 'people', a: 'b' } },
  { op: 'filter', column: 'people', operator: 'ge', value: 100000 },
  { op: 'filter', column: 'city', operator: 'contains', value: 'O' },
  { op: 'sort', columns: ['people'], descending: true },
  { op: 'dedupe', columns: ['city'] },
  { op: 'dedupe' },
  { op: 'limit', count: 10 },
  { op: 'cast', column: 'people', type: 'float' },
  { op: 'aggregate', group_by: ['country'], aggregates: [{ function: 'sum', column: 'people', as: 'total' }, { function: 'count' }] },
  { op: 'join', dataset_id: 7, on: ['country'], how: 'left', version: 2 },
  { op: 'sql', query: 'SELECT * FROM input' },
];

describe('the builder draft', () => {
  it('keeps every step op as it was through the form', () => {
    expect(STEPS.map((step) => stepToApi(stepFromApi(step)))).toEqual(STEPS);
  });

  it('reads a pipeline and writes back its body', () => {
    const pipeline = {
      name: 'p',
      description: 'd',
      source_dataset_id: 3,
      source_version: 4,
      steps: STEPS,
      output_dataset_name: 'out',
      output_format: 'parquet',
      trigger: { cron: '0 6 * * *', timezone: 'Europe/Oslo' },
    } as unknown as Pipeline;
    expect(draftToBody(draftFromPipeline(pipeline))).toEqual({
      name: 'p',
      description: 'd',
      source_dataset_id: 3,
      source_version: 4,
      steps: STEPS,
      output_dataset_name: 'out',
      output_format: 'parquet',
      trigger: { cron: '0 6 * * *', timezone: 'Europe/Oslo' },
    });
    const unpinned = draftFromPipeline({ ...pipeline, source_version: null, trigger: { on: 'new_version' } });
    expect(draftToBody(unpinned)).toMatchObject({ source_version: null, trigger: { on: 'new_version' } });
  });
});
