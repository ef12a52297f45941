import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';

import { findUsersOptions } from '../../api/gen/@tanstack/react-query.gen';
import { ErrorNotice } from '../../components/ErrorNotice';

interface Props {
  owner: string;
  ownerName: string;
  onOwner: (owner: string) => void;
}

/** Filter by owner: "Mine", or a person found in the directory by name or email. */
export function OwnerFilter({ owner, ownerName, onOwner }: Props) {
  const [text, setText] = useState('');
  const [asked, setAsked] = useState('');
  const inputId = useId();
  const people = useQuery({
    ...findUsersOptions({ query: { q: asked, limit: 8 } }),
    enabled: asked.length > 0,
  });

  return (
    <fieldset className="catalog-owner">
      <legend>Owner</legend>
      {owner ? (
        <p className="catalog-owner__current">
          Showing datasets of <strong>{owner === 'me' ? 'me' : ownerName}</strong>{' '}
          <button type="button" className="button" onClick={() => onOwner('')}>
            Any owner
          </button>
        </p>
      ) : (
        <button type="button" className="button" onClick={() => onOwner('me')}>
          Mine
        </button>
      )}
      <form
        className="catalog-owner__find"
        role="search"
        aria-label="Find an owner"
        onSubmit={(event) => {
          event.preventDefault();
          setAsked(text.trim());
        }}
      >
        <label htmlFor={inputId}>Find a person</label>
        <input id={inputId} type="search" value={text} onChange={(event) => setText(event.target.value)} />
        <button type="submit" className="button">
          Find
        </button>
      </form>
      <ErrorNotice error={people.error} />
      {asked && people.data && (
        people.data.items.length === 0 ? (
          <p className="muted">Nobody matches “{asked}”.</p>
        ) : (
          <ul className="catalog-owner__people" aria-label="People found">
            {people.data.items.map((person) => (
              <li key={person.id}>
                <button
                  type="button"
                  className="link-button"
                  onClick={() => {
                    onOwner(person.id);
                    setAsked('');
                    setText('');
                  }}
                >
                  {person.name || person.email}
                </button>{' '}
                <span className="muted">{person.email}</span>
              </li>
            ))}
          </ul>
        )
      )}
    </fieldset>
  );
}
