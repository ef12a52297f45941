import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { FormEvent } from 'react';

import { asApiError } from '../../../api/errors';
import type { Dataset } from '../../../api/gen/types.gen';
import type { ColumnDoc } from '../../../api/pending';
import { updateDatasetColumnsMutation } from '../../../api/pending';
import { useAnnounce } from '../../../components/Announcer';
import { OtherProblems } from '../../../components/Field';

interface Props {
  dataset: Dataset;
  columns: ColumnDoc[];
}

/** The columns with their types and descriptions. Writers edit every description and save
 *  them at once; a refused one's problem shows on its row, nothing typed is lost. */
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
  const draft = (column: ColumnDoc) => drafts[column.name] ?? column.description;
  const changed = columns.some((column) => draft(column) !== column.description);
  const rowProblem = (index: number) => problem?.fieldMessage(`columns.${index}.description`) ?? problem?.fieldMessage(`columns.${index}.name`);
  const shown = columns.flatMap((_, index) => [`columns.${index}.name`, `columns.${index}.description`]);

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate({ path: { dataset_id: dataset.id }, body: { columns: columns.map((column) => ({ name: column.name, description: draft(column) })) } });
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
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {columns.map((column, index) => {
            const message = rowProblem(index);
            return (
              <tr key={column.name} className={message ? 'schema-row--invalid' : undefined}>
                <td>{index + 1}</td>
                <th scope="row">{column.name}</th>
                <td>
                  <code>{column.type}</code>
                </td>
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
        <button type="submit" className="button button--primary" disabled={save.isPending || !changed}>
          {save.isPending ? 'Saving…' : 'Save descriptions'}
        </button>
        <button type="button" className="button" disabled={save.isPending || !changed} onClick={() => { setDrafts({}); save.reset(); }}>
          Undo changes
        </button>
        {save.isSuccess && !changed && (
          <span role="status" className="muted">
            Saved.
          </span>
        )}
      </div>
    </form>
  );
}
