import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import type { KeyboardEvent } from 'react';

import { findUsersOptions, listGroupsOptions } from '../../api/gen/@tanstack/react-query.gen';

export interface Principal {
  /** `user:<uuid>` or `group:<id>` */
  principal: string;
  /** How a person reads it: "Ann Lee (ann@example.com)" or "Group: Analysts". */
  label: string;
}

const DEBOUNCE_MS = 250;

function useDebounced(value: string): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [value]);
  return settled;
}

/** Who to share with: type a name, an email or a group's name; the matches are a listbox
 *  (arrows move, Enter chooses, Escape closes), the combobox pattern of WAI-ARIA. */
export function PeoplePicker({ onChoose, invalid }: { onChoose: (choice: Principal | null) => void; invalid?: boolean }) {
  const id = useId();
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [chosenLabel, setChosenLabel] = useState<string | null>(null);
  const q = useDebounced(text.trim());
  const searching = q.length > 0 && q !== chosenLabel; // no search for what was just chosen
  const people = useQuery({ ...findUsersOptions({ query: { q, limit: 10 } }), enabled: searching });
  const groups = useQuery({ ...listGroupsOptions({ query: { q, limit: 10 } }), enabled: searching });
  const options: Principal[] = [
    ...(people.data?.items ?? []).map((person) => ({
      principal: `user:${person.id}`,
      label: person.name ? `${person.name} (${person.email})` : person.email,
    })),
    ...(groups.data?.items ?? []).map((group) => ({ principal: `group:${group.id}`, label: `Group: ${group.name}` })),
  ];
  const loading = searching && (people.isFetching || groups.isFetching);
  const showList = open && searching && q === text.trim();
  const optionId = (index: number) => `${id}-option-${index}`;

  function choose(option: Principal) {
    setText(option.label);
    setChosenLabel(option.label);
    setOpen(false);
    onChoose(option);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setOpen(true);
      if (options.length) {
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setActive((active + step + options.length) % options.length);
      }
    } else if (event.key === 'Enter' && showList && options[active]) {
      event.preventDefault();
      choose(options[active]);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      setOpen(false);
    }
  }

  return (
    <div className="field sharing-picker">
      <label htmlFor={`${id}-input`}>Person or group</label>
      <p id={`${id}-hint`} className="field__hint">
        Type a name or an email, or a group&rsquo;s name, then choose from the list.
      </p>
      <input
        id={`${id}-input`}
        type="text"
        role="combobox"
        autoComplete="off"
        aria-autocomplete="list"
        aria-expanded={showList}
        aria-controls={`${id}-listbox`}
        aria-activedescendant={showList && options[active] ? optionId(active) : undefined}
        aria-describedby={`${id}-hint`}
        aria-invalid={invalid || undefined}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setActive(0);
          setOpen(true);
          onChoose(null);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setOpen(false)}
      />
      <div id={`${id}-listbox`} role="listbox" aria-label="Matches" className="sharing-picker__list" hidden={!showList}>
        {showList &&
          options.map((option, index) => (
            <div
              key={option.principal}
              id={optionId(index)}
              role="option"
              tabIndex={-1}
              aria-selected={index === active}
              className={index === active ? 'sharing-picker__option sharing-picker__option--active' : 'sharing-picker__option'}
              onMouseDown={(event) => {
                event.preventDefault(); // keep the focus in the input
                choose(option);
              }}
            >
              {option.label}
            </div>
          ))}
      </div>
      <p className="visually-hidden" role="status">
        {showList && !loading ? `${options.length} match${options.length === 1 ? '' : 'es'}` : ''}
      </p>
      {showList && !loading && options.length === 0 && <p className="muted">No active person or group matches.</p>}
    </div>
  );
}
