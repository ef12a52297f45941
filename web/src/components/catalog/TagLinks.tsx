import { Link } from 'react-router';

/** Tags as links to the catalog filtered by each. */
export function TagLinks({ tags }: { tags: string[] }) {
  if (tags.length === 0) return null;
  return (
    <ul className="catalog-tags" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag}>
          <Link className="tag" to={`/?${new URLSearchParams({ tag })}`} aria-label={`Tag ${tag}: show datasets tagged ${tag}`}>
            {tag}
          </Link>
        </li>
      ))}
    </ul>
  );
}
