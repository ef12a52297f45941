import type { DatasetFile } from '../../api/gen/types.gen';

const BY_EXTENSION: Record<string, string> = {
  csv: 'CSV',
  tsv: 'TSV',
  parquet: 'Parquet',
  jsonl: 'JSON lines',
  ndjson: 'JSON lines',
  json: 'JSON',
  xlsx: 'Excel',
  txt: 'Text',
};

const BY_TYPE: Record<string, string> = {
  'text/csv': 'CSV',
  'application/vnd.apache.parquet': 'Parquet',
  'application/x-parquet': 'Parquet',
  'application/x-ndjson': 'JSON lines',
  'application/jsonl': 'JSON lines',
  'application/json': 'JSON',
};

/** A file's format in words, from its name's extension or else its media type. */
export function fileFormat(file: DatasetFile | null | undefined): string {
  if (!file) return 'No file';
  const extension = file.filename.includes('.') ? file.filename.split('.').pop()!.toLowerCase() : '';
  if (BY_EXTENSION[extension]) return BY_EXTENSION[extension];
  const type = file.content_type.split(';')[0].trim().toLowerCase();
  return BY_TYPE[type] ?? (extension ? extension.toUpperCase() : 'Unknown');
}

/** A format's name as the search service gives it ("csv", "parquet") in words. */
export function formatName(format: string | null | undefined): string {
  if (!format) return 'No file';
  return BY_EXTENSION[format.toLowerCase()] ?? format.toUpperCase();
}
