import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import type { KeyboardEvent } from 'react';
import { useNavigate } from 'react-router';

import { searchSuggestOptions } from '../../api/gen/@tanstack/react-query.gen';
import type { Suggestion } from '../../api/gen/types.gen';
import { resultHref } from './catalogQuery';

const DEBOUNCE_MS = 150;

const KIND_WORDS: Record<Suggestion['kind'], string> = {
  dataset: 'Dataset',
  collection: 'Collection',
  pipeline: 'Pipeline',
  tag: 'Tag',
  column: 'Column',
};

/** `value`, once it has stayed the same for `ms`. */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), ms);
    return () => window.clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

interface Props {
  q: string;
  onSearch: (q: string) => void;
  onTag: (tag: string) => void;
}

/** The catalog's search box: a combobox whose listbox suggests, as one types, datasets,
 *  collections and pipelines (chosen: their page), tags (a filter) and columns (a search). */
export function SearchBox({ q, onSearch, onTag }: Props) {
  const [text, setText] = useState(q);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const navigate = useNavigate();
  const id = useId();
  // Back/forward and links change the URL: the box follows it.
  useEffect(() => setText(q), [q]);

  const asked = useDebounced(text.trim(), DEBOUNCE_MS);
  const suggestions = useQuery({
    ...searchSuggestOptions({ query: { q: asked } }),
    enabled: open && asked.length > 0,
    staleTime: 30_000,
    placeholderData: keepPreviousData,
  });
  const items = open && asked && text.trim() ? (suggestions.data?.items ?? []) : [];
  const expanded = items.length > 0;
  const optionId = (index: number) => `${id}-option-${index}`;

  function close() {
    setOpen(false);
    setActive(-1);
  }

  function choose(item: Suggestion) {
    close();
    if (item.kind === 'tag') {
      setText('');
      onTag(item.name);
    } else if (item.kind === 'column') {
      setText(item.name);
      onSearch(item.name);
    } else {
      navigate(resultHref(item.kind, item.id));
    }
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!open) setOpen(true);
      if (!items.length) return;
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current) => (current < 0 && step < 0 ? items.length - 1 : (current + step + items.length) % items.length));
    } else if (event.key === 'Enter' && expanded && active >= 0) {
      event.preventDefault();
      choose(items[active]);
    } else if (event.key === 'Escape' && (expanded || open)) {
      event.preventDefault();
      close();
    }
  }

  return (
    <form
      role="search"
      aria-label="Catalog"
      className="catalog-search"
      onSubmit={(event) => {
        event.preventDefault();
        close();
        onSearch(text.trim());
      }}
    >
      <label htmlFor={`${id}-input`}>Search the catalog</label>
      <p id={`${id}-hint`} className="field__hint">
        Words, &quot;an exact phrase&quot;, -word to leave one out, <em>or</em> between alternatives.
      </p>
      <div className="catalog-search__row">
        <div className="catalog-search__combo">
          <input
            id={`${id}-input`}
            type="search"
            role="combobox"
            autoComplete="off"
            aria-autocomplete="list"
            aria-expanded={expanded}
            aria-controls={`${id}-listbox`}
            aria-activedescendant={expanded && active >= 0 ? optionId(active) : undefined}
            aria-describedby={`${id}-hint`}
            value={text}
            onChange={(event) => {
              setText(event.target.value);
              setOpen(true);
              setActive(-1);
            }}
            onKeyDown={onKeyDown}
            onBlur={close}
          />
          <div id={`${id}-listbox`} role="listbox" aria-label="Suggestions" className="catalog-suggestions" hidden={!expanded}>
            {items.map((item, index) => (
              // The keys are the box's (aria-activedescendant): a click is the pointer's way.
              // eslint-disable-next-line jsx-a11y/click-events-have-key-events
              <div
                key={`${item.kind}-${item.kind === 'tag' || item.kind === 'column' ? item.name : item.id}`}
                id={optionId(index)}
                role="option"
                tabIndex={-1}
                aria-selected={index === active}
                className={`catalog-suggestion${index === active ? ' catalog-suggestion--active' : ''}`}
                // Keep the focus in the box: a click chooses without blurring it first.
                onMouseDown={(event) => event.preventDefault()}
                onClick={() => choose(item)}
              >
                <span className="catalog-suggestion__name">{item.name}</span>{' '}
                <span className="catalog-suggestion__kind">{KIND_WORDS[item.kind]}</span>
              </div>
            ))}
          </div>
        </div>
        <button type="submit" className="button button--primary">
          Search
        </button>
      </div>
      <p className="visually-hidden" role="status">
        {expanded ? `${items.length} suggestion${items.length === 1 ? '' : 's'}, up and down arrows to choose` : ''}
      </p>
    </form>
  );
}
