import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { Link, useSearchParams } from 'react-router';

import { getDatasetLineageOptions, listDatasetVersionsOptions } from '../../../api/gen/@tanstack/react-query.gen';
import type { Lineage } from '../../../api/gen/types.gen';
import { Field } from '../../../components/Field';
import { Loading, QueryState } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { useDataset } from '../context';
import { nodeKind, nodeLabel, nodeLink } from './nodes';
import './Lineage.css';

// The graph library (@xyflow/react + dagre) is its own chunk, loaded when this tab opens.
const LineageGraph = lazy(() => import('./LineageGraph'));

type Direction = 'upstream' | 'downstream' | 'both';
const DIRECTIONS: Direction[] = ['both', 'upstream', 'downstream'];

/** The same nodes and edges as the graph, as tables (for keyboards and screen readers). */
function LineageTables({ lineage }: { lineage: Lineage }) {
  const byId = new Map(lineage.nodes.map((node) => [node.id, node]));
  const name = (id: string) => {
    const node = byId.get(id);
    return node ? nodeLabel(node) : id;
  };
  return (
    <>
      <h3 id="lineage-nodes-title">Nodes</h3>
      <div className="table-wrap">
        <table aria-labelledby="lineage-nodes-title">
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Kind</th>
            </tr>
          </thead>
          <tbody>
            {lineage.nodes.map((node) => {
              const to = nodeLink(node);
              return (
                <tr key={node.id}>
                  <th scope="row">{to ? <Link to={to}>{nodeLabel(node)}</Link> : nodeLabel(node)}</th>
                  <td>{nodeKind(node)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <h3 id="lineage-edges-title">Edges</h3>
      {lineage.edges.length === 0 ? (
        <p>No run read or made this version (yet).</p>
      ) : (
        <div className="table-wrap">
          <table aria-labelledby="lineage-edges-title">
            <thead>
              <tr>
                <th scope="col">From</th>
                <th scope="col">To</th>
              </tr>
            </thead>
            <tbody>
              {lineage.edges.map((edge) => (
                <tr key={`${edge.from}->${edge.to}`}>
                  <td>{name(edge.from)}</td>
                  <td>{name(edge.to)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** The Lineage tab: which runs made this version and from what, and what was made from it. */
export function LineageTab() {
  const dataset = useDataset();
  usePageTitle(`Lineage · ${dataset.name}`);
  const [params, setParams] = useSearchParams();
  const direction = (DIRECTIONS as string[]).includes(params.get('direction') ?? '') ? (params.get('direction') as Direction) : 'both';
  const depth = Math.min(10, Math.max(1, Number(params.get('depth')) || 3));
  const version = Number(params.get('version')) || dataset.current_version;
  const versions = useQuery({
    ...listDatasetVersionsOptions({ path: { dataset_id: dataset.id }, query: { limit: 100 } }),
    enabled: dataset.current_version !== null,
  });
  const query = useQuery({
    ...getDatasetLineageOptions({
      path: { dataset_id: dataset.id },
      query: { direction, depth, ...(version ? { version } : {}) },
    }),
    enabled: dataset.current_version !== null,
  });
  const change = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    next.set(name, value);
    setParams(next, { replace: true });
  };
  const current = `dataset:${dataset.id}@${version}`;

  return (
    <section aria-labelledby="lineage-title">
      <h2 id="lineage-title">Lineage of version {version ?? '—'}</h2>
      <div className="lineage-controls">
        {(versions.data?.items.length ?? 0) > 1 && (
          <Field label="Version">
            <select value={version ?? ''} onChange={(event) => change('version', event.target.value)}>
              {versions.data?.items.map((item) => (
                <option key={item.version} value={item.version}>
                  {item.version}
                  {item.version === dataset.current_version ? ' (current)' : ''}
                </option>
              ))}
            </select>
          </Field>
        )}
        <Field label="Direction">
          <select value={direction} onChange={(event) => change('direction', event.target.value)}>
            <option value="both">Both ways</option>
            <option value="upstream">Upstream (where it came from)</option>
            <option value="downstream">Downstream (what was made from it)</option>
          </select>
        </Field>
        <Field label="Depth (runs away)">
          <select value={depth} onChange={(event) => change('depth', event.target.value)}>
            {Array.from({ length: 10 }, (_, index) => index + 1).map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {dataset.current_version === null ? (
        <p className="empty">No version yet: lineage starts with the first upload.</p>
      ) : (
        <QueryState isPending={query.isPending} error={query.error}>
          {query.data && (
            <>
              <Suspense fallback={<Loading label="Drawing the graph…" />}>
                <LineageGraph lineage={query.data} current={current} />
              </Suspense>
              <LineageTables lineage={query.data} />
            </>
          )}
        </QueryState>
      )}
    </section>
  );
}
