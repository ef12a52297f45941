/** Lineage nodes in words and as places in the app (shared by the graph and the table). */
import type { LineageNode } from '../../../api/gen/types.gen';

export function nodeLabel(node: LineageNode): string {
  if (node.type === 'version') return `${node.name ?? `Dataset ${node.dataset_id}`} · version ${node.version}`;
  if (node.type === 'run') return `Pipeline ${node.pipeline_id} · run #${node.run_id}`;
  return 'Hidden (you may not see it)';
}

export function nodeKind(node: LineageNode): string {
  if (node.type === 'version') return 'Dataset version';
  if (node.type === 'run') return 'Pipeline run';
  return 'Hidden';
}

/** Where a node leads in the app; null for a hidden node. */
export function nodeLink(node: LineageNode): string | null {
  if (node.type === 'version' && node.dataset_id !== undefined) return `/datasets/${node.dataset_id}`;
  if (node.type === 'run' && node.pipeline_id !== undefined) return `/pipelines/${node.pipeline_id}/runs/${node.run_id}`;
  return null;
}
