import { useId } from 'react';

import type { FacetValue, Facets as SearchFacets } from '../../api/gen/types.gen';
import { formatName } from '../../components/catalog/fileFormat';
import type { CatalogFilters, SearchKind, SingleFacet } from './catalogQuery';
import { KINDS } from './catalogQuery';

interface Props {
  facets: SearchFacets | undefined;
  filters: CatalogFilters;
  ownerNames: Map<string, string>;
  onTypes: (types: SearchKind[]) => void;
  onFacet: (facet: SingleFacet, value: string) => void;
}

/** The facets of the current search as filters with their counts: kinds as checkboxes
 *  (any mix), tag, owner, format and visibility as one choice each ("Any" first). */
export function Facets({ facets, filters, ownerNames, onTypes, onFacet }: Props) {
  const typeCounts = new Map((facets?.type ?? []).map((facet) => [facet.value, facet.count]));
  return (
    <div className="catalog-facets">
      <fieldset className="facet">
        <legend>Type</legend>
        {KINDS.map((kind) => {
          const checked = filters.types.includes(kind.value);
          return (
            <label key={kind.value} className="checkbox">
              <input
                type="checkbox"
                checked={checked}
                onChange={() => onTypes(checked ? filters.types.filter((t) => t !== kind.value) : [...filters.types, kind.value])}
              />
              <span>
                {kind.label} <FacetCount count={typeCounts.get(kind.value) ?? (facets ? 0 : undefined)} />
              </span>
            </label>
          );
        })}
      </fieldset>
      <FacetChoice legend="Tag" values={facets?.tags} chosen={filters.tag} label={(v) => v} onChoose={(v) => onFacet('tag', v)} />
      <FacetChoice
        legend="Owner"
        values={facets?.owner}
        chosen={filters.owner}
        label={(v) => ownerNames.get(v) ?? (v === 'me' ? 'Me' : 'Unknown person')}
        onChoose={(v) => onFacet('owner', v)}
      />
      <FacetChoice legend="Format" values={facets?.format} chosen={filters.format} label={formatName} onChoose={(v) => onFacet('format', v)} />
      <FacetChoice
        legend="Visibility"
        values={facets?.visibility}
        chosen={filters.visibility}
        label={(v) => (v === 'private' ? 'Private' : v === 'internal' ? 'Internal' : v)}
        onChoose={(v) => onFacet('visibility', v)}
      />
    </div>
  );
}

function FacetCount({ count }: { count: number | undefined }) {
  if (count === undefined) return null;
  return <span className="facet__count">({count.toLocaleString()})</span>;
}

interface ChoiceProps {
  legend: string;
  values: FacetValue[] | undefined;
  chosen: string;
  label: (value: string) => string;
  onChoose: (value: string) => void;
}

/** One facet as radio buttons: "Any", then its values with counts (the chosen one even
 *  when the service no longer counts it). Hidden while there is nothing to choose. */
function FacetChoice({ legend, values = [], chosen, label, onChoose }: ChoiceProps) {
  const name = useId();
  const shown = chosen && !values.some((v) => v.value === chosen) ? [{ value: chosen, count: undefined }, ...values] : values;
  if (shown.length === 0) return null;
  return (
    <fieldset className="facet">
      <legend>{legend}</legend>
      <label className="checkbox">
        <input type="radio" name={name} checked={!chosen} onChange={() => onChoose('')} />
        <span>Any</span>
      </label>
      {shown.map((facet) => (
        <label key={facet.value} className="checkbox">
          <input type="radio" name={name} checked={chosen === facet.value} onChange={() => onChoose(facet.value)} />
          <span className="facet__value">
            {label(facet.value)} <FacetCount count={facet.count} />
          </span>
        </label>
      ))}
    </fieldset>
  );
}
