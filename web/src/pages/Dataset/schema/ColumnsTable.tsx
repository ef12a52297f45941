import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { FormEvent } from 'react';

import { asApiError } from '../../../api/errors';
import { updateDatasetColumnsMutation } from '../../../api/gen/@tanstack/react-query.gen';
import type { Column, Dataset } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';
import { OtherProblems } from '../../../components/Field';

interface Props {
  dataset: Dataset;
  columns: Column[];
}

/** The columns with their types, whether they hold nulls (once read) and descriptions. Writers edit any of the descriptions and
 *  save the changed ones at once; a refused one's problem shows on its row, nothing typed
 *  is lost. */
export function ColumnsTable({ dataset, columns }: Props) {
  const write = dataset.capabilities.write;
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const id = useId();
  const save = useMutation({
    ...updateDatasetColumnsMutation(),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ predicate: (query) => (query.queryKey[0] as { _id?: string } | undefined)?._id === 'getDatasetColumns' });
      setDrafts({});
      announce('The column descriptions were saved.');
    },
  });
  const problem = save.error ? asApiError(save.error) : null;
  const draft = (column: Column) => drafts[column.name] ?? column.description;
  const changed = columns.filter((column) => draft(column) !== column.description);
  // The request's columns are the changed ones, in the table's order: a 422's index is theirs.
  const [sent, setSent] = useState<string[]>([]);
  const rowProblem = (name: string) => {
    const index = sent.indexOf(name);
    if (!problem || index < 0) return undefined;
    return problem.fieldMessage(`columns.${index}.description`) ?? problem.fieldMessage(`columns.${index}.name`);
  };
  // Whether a column holds a null is what the worker read of the version (dataset.schema).
  const read = dataset.schema?.columns;
  const hasNulls = (name: string) => {
    const column = read?.find((item) => item.name === name);
    return column === undefined ? '—' : column.nullable ? 'Yes' : 'No';
  };
  const shown = sent.flatMap((_, index) => [`columns.${index}.name`, `columns.${index}.description`]);

  function submit(event: FormEvent) {
    event.preventDefault();
    setSent(changed.map((column) => column.name));
    save.mutate({ path: { dataset_id: dataset.id }, body: { columns: changed.map((column) => ({ name: column.name, description: draft(column) })) } });
  }

  const table = (
    <div className="table-wrap">
      <table className="schema-table">
        <caption className="visually-hidden">Columns of {dataset.name}</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Column</th>
            <th scope="col">Type</th>
            {read && <th scope="col">Has nulls</th>}
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {columns.map((column, index) => {
            const message = rowProblem(column.name);
            return (
              <tr key={column.name} className={message ? 'schema-row--invalid' : undefined}>
                <td>{index + 1}</td>
                <th scope="row">{column.name}</th>
                <td>
                  <code>{column.type}</code>
                </td>
                {read && <td>{hasNulls(column.name)}</td>}
                <td className="schema-description">
                  {write ? (
                    <div className={`field${message ? ' field--invalid' : ''}`}>
                      <label className="visually-hidden" htmlFor={`${id}-${index}`}>
                        Description of {column.name}
                      </label>
                      <textarea
                        id={`${id}-${index}`}
                        rows={2}
                        value={draft(column)}
                        aria-invalid={message ? true : undefined}
                        aria-describedby={message ? `${id}-${index}-error` : undefined}
                        onChange={(event) => setDrafts({ ...drafts, [column.name]: event.target.value })}
                      />
                      {message && (
                        <p id={`${id}-${index}-error`} className="field__error">
                          {message}
                        </p>
                      )}
                    </div>
                  ) : (
                    column.description || <span className="muted">No description.</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
  if (!write) return table;
  return (
    <form onSubmit={submit} noValidate aria-label="Column descriptions">
      {table}
      <OtherProblems error={save.error} shown={shown} />
      <div className="actions">
        <button type="submit" className="button button--primary" disabled={save.isPending || changed.length === 0}>
          {save.isPending ? 'Saving…' : 'Save descriptions'}
        </button>
        <button type="button" className="button" disabled={save.isPending || changed.length === 0} onClick={() => { setDrafts({}); save.reset(); }}>
          Undo changes
        </button>
        {save.isSuccess && changed.length === 0 && (
          <span role="status" className="muted">
            Saved.
          </span>
        )}
      </div>
    </form>
  );
}
