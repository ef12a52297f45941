interface Props {
  total: number;
  limit: number;
  offset: number;
  onOffset: (offset: number) => void;
  label?: string;
}

/** Server-side paging: "21–40 of 10,000" with previous and next. */
export function Pager({ total, limit, offset, onOffset, label = 'Pages' }: Props) {
  if (total <= limit && offset === 0) return null;
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(offset + limit, total);
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span aria-live="polite">
        {first.toLocaleString()}–{last.toLocaleString()} of {total.toLocaleString()}
      </span>
      <button type="button" className="button" disabled={last >= total} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
    </nav>
  );
}
