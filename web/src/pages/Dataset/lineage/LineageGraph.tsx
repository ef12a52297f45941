/** The lineage graph: @xyflow/react drawing, dagre laying out left to right. Its own chunk. */
import dagre from '@dagrejs/dagre';
import { Background, Controls, Handle, MarkerType, Position, ReactFlow } from '@xyflow/react';
import type { Edge, Node, NodeProps } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useMemo } from 'react';
import type { MouseEvent } from 'react';
import { Link, useNavigate } from 'react-router';

import type { Lineage, LineageNode } from '../../../api/gen/types.gen';
import { nodeKind, nodeLabel, nodeLink } from './nodes';

const WIDTH = 220;
const HEIGHT = 64;
const EDGE_COLOUR = '#4f5863';

type LineageNodeData = { node: LineageNode; current: boolean };
type FlowNode = Node<LineageNodeData, 'lineage'>;

/** One node: a link to its dataset or run (Enter follows it), or "hidden". */
function LineageNodeView({ data }: NodeProps<FlowNode>) {
  const { node, current } = data;
  const to = nodeLink(node);
  return (
    <div className={`lineage-node lineage-node--${node.type}${current ? ' lineage-node--current' : ''}`}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <span className="lineage-node__kind">
        {nodeKind(node)}
        {current ? ' · this version' : ''}
      </span>
      {to ? (
        <Link className="lineage-node__link nodrag" to={to}>
          {nodeLabel(node)}
        </Link>
      ) : (
        <span className="lineage-node__hidden">{nodeLabel(node)}</span>
      )}
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
}

const NODE_TYPES = { lineage: LineageNodeView };

function layout(lineage: Lineage, current: string): { nodes: FlowNode[]; edges: Edge[] } {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 60 });
  graph.setDefaultEdgeLabel(() => ({}));
  lineage.nodes.forEach((node) => graph.setNode(node.id, { width: WIDTH, height: HEIGHT }));
  lineage.edges.forEach((edge) => graph.setEdge(edge.from, edge.to));
  dagre.layout(graph);
  const nodes = lineage.nodes.map((node): FlowNode => {
    const place = graph.node(node.id);
    return {
      id: node.id,
      type: 'lineage',
      position: { x: place.x - WIDTH / 2, y: place.y - HEIGHT / 2 },
      data: { node, current: node.id === current },
      ariaLabel: nodeLabel(node),
    };
  });
  const edges = lineage.edges.map(
    (edge): Edge => ({
      id: `${edge.from}->${edge.to}`,
      source: edge.from,
      target: edge.to,
      markerEnd: { type: MarkerType.ArrowClosed, color: EDGE_COLOUR },
    }),
  );
  return { nodes, edges };
}

export default function LineageGraph({ lineage, current }: { lineage: Lineage; current: string }) {
  const { nodes, edges } = useMemo(() => layout(lineage, current), [lineage, current]);
  const navigate = useNavigate();
  // A click anywhere on a node follows it (its link also takes Enter from the keyboard).
  const follow = (event: MouseEvent, node: FlowNode) => {
    const to = nodeLink(node.data.node);
    if (to && !(event.target as Element).closest('a')) navigate(to);
  };
  return (
    <figure className="lineage-graph" aria-labelledby="lineage-graph-caption">
      <figcaption id="lineage-graph-caption" className="muted">
        The graph: versions and the runs between them, left to right. The same nodes and edges are listed in the
        tables below.
      </figcaption>
      <div className="lineage-graph__canvas">
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={NODE_TYPES}
          onNodeClick={follow}
          fitView
          nodesDraggable={false}
          nodesConnectable={false}
          nodesFocusable={false}
          edgesFocusable={false}
          elementsSelectable={false}
          proOptions={{ hideAttribution: true }}
          minZoom={0.2}
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
    </figure>
  );
}
