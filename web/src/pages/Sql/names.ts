/**
 * Names as the SQL console writes them: a dataset or column name as an identifier (quoted
 * when it is not a plain word or is one of DuckDB's reserved words), and what completion
 * offers (the readable datasets, and their columns).
 */
import type { Completion } from '@codemirror/autocomplete';
import type { SQLNamespace } from '@codemirror/lang-sql';

const PLAIN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** DuckDB's reserved keywords (duckdb_keywords(), category "reserved"). */
const RESERVED = new Set(
  `all analyse analyze and any array as asc asymmetric both case cast check collate column
  constraint create default deferrable desc describe distinct do else end except false fetch
  for foreign from group having in initially intersect into lambda lateral leading limit not
  null offset on only or order pivot pivot_longer pivot_wider placing primary qualify
  references returning select show some summarize symmetric table then to trailing true union
  unique unpivot using variadic when where window with`.split(/\s+/),
);

/** `name` as an identifier: as it is when plain, else in double quotes ("Sales 2025"). */
export function identifier(name: string): string {
  if (PLAIN.test(name) && !RESERVED.has(name.toLowerCase())) return name;
  return `"${name.replace(/"/g, '""')}"`;
}

export interface TableColumn {
  name: string;
  type: string;
}

export interface Table {
  name: string;
  columns: TableColumn[];
}

function columnCompletion(column: TableColumn, table?: string): Completion {
  return {
    label: column.name,
    apply: identifier(column.name),
    type: 'property',
    detail: table ? `${column.type} · ${table}` : column.type,
  };
}

/** The tables for CodeMirror's SQL completion: each dataset by name (`name.` then offers
 *  its columns), applied as an identifier. */
export function completionSchema(tables: Table[]): SQLNamespace {
  const schema: Record<string, SQLNamespace> = {};
  for (const table of tables) {
    // A dot in a key would make a schema level: escaped, it stays part of the name.
    schema[table.name.replace(/\./g, '\\.')] = {
      self: { label: table.name, apply: identifier(table.name), type: 'type', detail: 'dataset' },
      children: table.columns.map((column) => columnCompletion(column)),
    };
  }
  return schema;
}

/** Whether `text` mentions the dataset `name` (as a whole name, in any case). */
export function mentions(text: string, name: string): boolean {
  const lower = text.toLowerCase();
  const wanted = name.toLowerCase();
  let at = lower.indexOf(wanted);
  while (at !== -1) {
    const before = lower.slice(at - 1, at);
    const after = lower.slice(at + wanted.length, at + wanted.length + 1);
    if (!/\w/.test(before) && !/\w/.test(after)) return true;
    at = lower.indexOf(wanted, at + 1);
  }
  return false;
}

/** The columns of the tables `text` names: what a bare word may complete to. */
export function columnWords(tables: Table[], text: string): Completion[] {
  const seen = new Set<string>();
  const words: Completion[] = [];
  for (const table of tables) {
    if (!mentions(text, table.name)) continue;
    for (const column of table.columns) {
      if (seen.has(column.name)) continue;
      seen.add(column.name);
      words.push(columnCompletion(column, table.name));
    }
  }
  return words;
}
