// A dataset's lineage as a small SVG graph (GET /datasets/{id}/lineage): its current
// version in the middle, upstream to the left (the run that made it, the versions that
// run read, ...) and downstream to the right (the runs that read it, the versions they
// made, ...), in columns by distance. A version of another dataset links to that
// dataset's page (#dataset/ID); a run shows its pipeline's name.
import { DatahubError } from "./datahub-client.js";
import { $, lastOnly } from "./ui.js";

const SVG = "http://www.w3.org/2000/svg";
const DEPTH = 3; // runs away, each way
const NODE = { width: 190, height: 42 };
const GAP = { x: 48, y: 14 };
const PAD = 6;
const LABEL_CHARACTERS = 26;
const loads = lastOnly(); // an older answer arriving late is dropped

export function clearLineage() {
  loads.drop();
  $("lineage").replaceChildren();
  $("lineage-note").textContent = "";
}

/** Show the lineage of `dataset`'s current version; `pipelines` maps the pipelines' ids
 *  the app knows to their names (others are asked for). */
export async function showLineage(api, dataset, pipelines) {
  const current = loads.next();
  if (dataset.current_version === null) {
    clearLineage();
    $("lineage-note").textContent = "No file yet, so no lineage.";
    return;
  }
  const version = dataset.current_version;
  const graph = await api.getLineage(dataset.id, { version, depth: DEPTH });
  const names = await pipelineNames(api, graph.nodes, pipelines);
  if (!current()) return;
  if (graph.nodes.length <= 1) {
    $("lineage").replaceChildren();
    $("lineage-note").textContent = `No run made version ${version} or read it.`;
    return;
  }
  $("lineage-note").textContent = `Version ${version} in the middle: where it comes from on `
    + "the left, what was made from it on the right. A version opens its dataset.";
  $("lineage").replaceChildren(drawing(graph, `dataset:${dataset.id}@${version}`, names));
}

async function pipelineNames(api, nodes, known) {
  const names = new Map(known);
  const missing = new Set(nodes
    .filter((node) => node.type === "run" && !names.has(node.pipeline_id))
    .map((node) => node.pipeline_id));
  await Promise.all([...missing].map(async (id) => {
    try {
      names.set(id, (await api.getPipeline(id)).name);
    } catch (error) {
      if (!(error instanceof DatahubError) || error.status !== 404) throw error;
      names.set(id, `pipeline ${id}`); // deleted meanwhile
    }
  }));
  return names;
}

// Each node's column: the longest path from the middle, so that every edge points right
// (upstream nodes get negative columns, downstream ones positive).
function columnsOf(graph, center) {
  const column = new Map([[center, 0]]);
  let moved = true;
  for (let round = 0; moved && round <= graph.nodes.length; round += 1) {
    moved = false;
    for (const edge of graph.edges) {
      const from = column.get(edge.from);
      const to = column.get(edge.to);
      if (to !== undefined && to <= 0 && edge.from !== center && !(from <= to - 1)) {
        column.set(edge.from, to - 1);
        moved = true;
      }
      if (from !== undefined && from >= 0 && edge.to !== center && !(to >= from + 1)) {
        column.set(edge.to, from + 1);
        moved = true;
      }
    }
  }
  const columns = new Map();
  for (const node of graph.nodes) {
    const at = column.get(node.id) ?? 0;
    columns.set(at, [...(columns.get(at) || []), node]);
  }
  return [...columns.keys()].sort((a, b) => a - b)
    .map((at) => columns.get(at).sort((a, b) => label(a).localeCompare(label(b), "en", {
      numeric: true,
    })));
}

function label(node) {
  return node.type === "version" ? `${node.name ?? ""} ${node.version}` : `run ${node.run_id}`;
}

function element(tag, attributes = {}) {
  const made = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  return made;
}

function short(text) {
  return text.length > LABEL_CHARACTERS ? `${text.slice(0, LABEL_CHARACTERS - 1)}…` : text;
}

function drawing(graph, center, pipelines) {
  const columns = columnsOf(graph, center);
  const tallest = Math.max(...columns.map((nodes) => nodes.length));
  const step = { x: NODE.width + GAP.x, y: NODE.height + GAP.y };
  const width = 2 * PAD + columns.length * step.x - GAP.x;
  const height = 2 * PAD + tallest * step.y - GAP.y;
  const svg = element("svg", {
    width, height, viewBox: `0 0 ${width} ${height}`, role: "group", "aria-label": "Lineage",
  });
  const arrow = element("marker", {
    id: "lineage-arrow", viewBox: "0 0 8 8", refX: 8, refY: 4,
    markerWidth: 8, markerHeight: 8, orient: "auto",
  });
  arrow.append(element("path", { d: "M0,0 L8,4 L0,8 z", class: "arrow" }));
  const defs = element("defs");
  defs.append(arrow);
  svg.append(defs);

  const at = new Map();
  columns.forEach((nodes, i) => {
    const top = PAD + ((tallest - nodes.length) * step.y) / 2;
    nodes.forEach((node, j) => at.set(node.id, { x: PAD + i * step.x, y: top + j * step.y }));
  });
  for (const edge of graph.edges) {
    const from = at.get(edge.from);
    const to = at.get(edge.to);
    if (!from || !to) continue;
    const [x1, y1] = [from.x + NODE.width, from.y + NODE.height / 2];
    const [x2, y2] = [to.x, to.y + NODE.height / 2];
    const bend = GAP.x / 2;
    svg.append(element("path", {
      class: "edge", "marker-end": "url(#lineage-arrow)",
      d: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`,
    }));
  }
  for (const node of graph.nodes) svg.append(nodeElement(node, at.get(node.id), center, pipelines));
  return svg;
}

// A version: its dataset's name and "version N", a link unless it is the middle one. A run:
// its pipeline's name and "run N".
function nodeElement(node, { x, y }, center, pipelines) {
  const isVersion = node.type === "version";
  const isLink = isVersion && node.id !== center;
  const group = element(isLink ? "a" : "g", {
    class: `node ${node.type}${node.id === center ? " center" : ""}`, "data-node": node.id,
  });
  if (isLink) group.setAttribute("href", `#dataset/${node.dataset_id}`);
  const [name, detail] = isVersion
    ? [node.name ?? `dataset ${node.dataset_id}`, `version ${node.version}`]
    : [pipelines.get(node.pipeline_id), `run ${node.run_id}`];
  const title = element("title");
  title.textContent = `${name}, ${detail}`;
  const box = element("rect", {
    x, y, width: NODE.width, height: NODE.height, rx: isVersion ? 3 : 12,
  });
  const first = element("text", { x: x + 10, y: y + 17, class: "name" });
  first.textContent = short(name);
  const second = element("text", { x: x + 10, y: y + 33, class: "detail" });
  second.textContent = detail;
  group.append(title, box, first, second);
  return group;
}
