import { describe, expect, it } from 'vitest';

import { columnWords, completionSchema, identifier, mentions } from './names';
import { parsePins, sharePath } from './share';

const TABLES = [
  { name: 'cities', columns: [{ name: 'city', type: 'VARCHAR' }] },
  { name: 'Sales 2025', columns: [{ name: 'Amount (EUR)', type: 'DOUBLE' }, { name: 'city', type: 'VARCHAR' }] },
  { name: 'v1.2', columns: [] },
];

describe('names in the SQL console', () => {
  it('quotes a name only when it is not a plain word or is reserved', () => {
    expect(identifier('cities')).toBe('cities');
    expect(identifier('Small_Table')).toBe('Small_Table');
    expect(identifier('Sales 2025')).toBe('"Sales 2025"');
    expect(identifier('2025 sales')).toBe('"2025 sales"');
    expect(identifier('select')).toBe('"select"');
    expect(identifier('Order')).toBe('"Order"');
    expect(identifier('say "hi"')).toBe('"say ""hi"""');
  });

  it('offers each dataset applied as an identifier, with its columns below it', () => {
    const schema = completionSchema(TABLES) as Record<string, { self: { label: string; apply: string }; children: { label: string; apply: string; detail: string }[] }>;
    expect(Object.keys(schema)).toEqual(['cities', 'Sales 2025', 'v1\\.2']);
    expect(schema['Sales 2025'].self).toMatchObject({ label: 'Sales 2025', apply: '"Sales 2025"' });
    expect(schema['Sales 2025'].children[0]).toMatchObject({ label: 'Amount (EUR)', apply: '"Amount (EUR)"', detail: 'DOUBLE' });
  });

  it('offers bare columns of the datasets the text names (whole names, any case)', () => {
    expect(mentions('select * from "sales 2025"', 'Sales 2025')).toBe(true);
    expect(mentions('select * from cities_old', 'cities')).toBe(false);
    expect(columnWords(TABLES, 'SELECT  FROM cities').map((word) => word.label)).toEqual(['city']);
    expect(columnWords(TABLES, 'SELECT FROM cities JOIN "Sales 2025"').map((word) => word.label)).toEqual(['city', 'Amount (EUR)']);
  });

  it('puts the query and its versions in a link, and reads them back', () => {
    const path = sharePath('SELECT 1, \'a&b\'', [{ dataset_id: 3, name: 'cities', version: 2 }, { dataset_id: 5, name: 'x', version: 1 }]);
    const params = new URLSearchParams(path.split('?')[1]);
    expect(path.startsWith('/sql?')).toBe(true);
    expect(params.get('sql')).toBe("SELECT 1, 'a&b'");
    expect(parsePins(params.get('pins'))).toEqual([{ dataset_id: 3, version: 2 }, { dataset_id: 5, version: 1 }]);
    expect(sharePath('SELECT 1', [])).toBe('/sql?sql=SELECT+1');
    expect(parsePins('3@2,bad,4@x, 6@1')).toEqual([{ dataset_id: 3, version: 2 }, { dataset_id: 6, version: 1 }]);
    expect(parsePins(null)).toEqual([]);
  });
});
