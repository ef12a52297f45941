import { asApiError } from '../api/errors';

/** An error where it happened, in words: 422s list their fields, 429/503 say when to retry. */
export function ErrorNotice({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const problem = asApiError(error);
  return (
    <div role="alert" className="notice notice--error">
      {title && <strong>{title}: </strong>}
      {problem.fields.length > 1 ? (
        <ul>
          {problem.fields.map((field) => (
            <li key={field.path.join('.')}>
              {field.path.length > 0 && `${field.path.join(' › ')}: `}
              {field.message}
            </li>
          ))}
        </ul>
      ) : (
        problem.message
      )}
    </div>
  );
}
