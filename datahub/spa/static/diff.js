// Two versions of a dataset compared (GET /datasets/{id}/diff): the columns added, removed
// and retyped, how many rows were added, removed, changed and unchanged, and the service's
// sample of each kind in small tables. Key columns are optional: without them rows are
// compared whole, so a changed row counts as one removed and one added.
import { DatahubError } from "./datahub-client.js";
import { $, busy, headerRow, lastOnly, valuesRow } from "./ui.js";

const COUNTS = ["added", "removed", "changed", "unchanged"];
const diffs = lastOnly(); // an older answer arriving late is dropped
let shown = null; // {api, dataset}: the dataset whose versions the form offers

export function clearDiff() {
  diffs.drop();
  shown = null;
  $("diff-area").hidden = true;
  $("diff-result").hidden = true;
  $("diff-error").hidden = true;
}

function option(version) {
  const element = document.createElement("option");
  element.value = version.version;
  element.textContent = `version ${version.version}`;
  return element;
}

/** Offer `versions` (newest first) of `dataset`: from the one before the newest to the
 *  newest. Fewer than two: nothing to compare, no form. */
export function setUpDiff(api, dataset, versions) {
  clearDiff();
  if (versions.length < 2) return;
  shown = { api, dataset };
  $("diff-from").replaceChildren(...versions.map(option));
  $("diff-to").replaceChildren(...versions.map(option));
  $("diff-from").value = versions[1].version;
  $("diff-to").value = versions[0].version;
  $("diff-area").hidden = false;
}

function item(text) {
  const li = document.createElement("li");
  li.textContent = text;
  return li;
}

function schemaChanges({ added, removed, changed }) {
  const items = [
    ...added.map((column) => item(`added column ${column.name} (${column.type})`)),
    ...removed.map((column) => item(`removed column ${column.name} (${column.type})`)),
    ...changed.map((column) => item(`column ${column.name}: ${column.from} → ${column.to}`)),
  ];
  return items.length ? items : [item("the same columns, of the same types")];
}

function count(kind, value) {
  const element = document.createElement("span");
  element.className = `count ${kind}`;
  element.dataset.kind = kind;
  const number = document.createElement("strong");
  number.textContent = value;
  element.append(number, ` ${kind}`);
  return element;
}

// One kind of sample rows: a heading ("Added rows", and how many of them are shown) and
// a small table; nothing when there are none.
function sample(kind, total, header, rows) {
  if (rows.length === 0) return [];
  const heading = document.createElement("h4");
  const shownRows = rows.length < total ? ` (the first ${rows.length} of ${total})` : "";
  heading.textContent = `${kind[0].toUpperCase()}${kind.slice(1)} rows${shownRows}`;
  const table = document.createElement("table");
  table.className = "small";
  table.dataset.kind = kind;
  const head = document.createElement("thead");
  head.append(headerRow(header));
  const body = document.createElement("tbody");
  body.append(...rows);
  table.append(head, body);
  const scroll = document.createElement("div");
  scroll.className = "scroll";
  scroll.append(table);
  return [heading, scroll];
}

// A changed row as two lines, "from" and "to", the values that differ marked.
function changedRows(change) {
  const lines = [["from", change.from], ["to", change.to]].map(([label, values]) => {
    const row = valuesRow(values);
    row.className = label;
    const name = document.createElement("td");
    name.className = "muted";
    name.textContent = label;
    row.prepend(name);
    return row;
  });
  change.to.forEach((value, i) => {
    if (JSON.stringify(value) === JSON.stringify(change.from[i])) return;
    for (const line of lines) line.children[i + 1].classList.add("differs");
  });
  return lines;
}

function render(diff, key) {
  const how = key.length ? `rows matched by ${key.join(", ")}` : "rows compared whole";
  $("diff-title").textContent = `Version ${diff.from} → version ${diff.to}, ${how}`;
  $("diff-schema").replaceChildren(...schemaChanges(diff.schema));
  $("diff-counts").replaceChildren(...COUNTS.map((kind) => count(kind, diff.rows[kind])));
  $("diff-samples").replaceChildren(
    ...sample("added", diff.rows.added, diff.columns, diff.sample.added.map(valuesRow)),
    ...sample("removed", diff.rows.removed, diff.columns, diff.sample.removed.map(valuesRow)),
    ...sample("changed", diff.rows.changed, ["", ...diff.columns],
      diff.sample.changed.flatMap(changedRows)),
  );
  $("diff-result").hidden = false;
}

$("diff-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const { api, dataset } = shown;
  const from = Number($("diff-from").value);
  const to = Number($("diff-to").value);
  const key = $("diff-key").value.split(",").map((name) => name.trim()).filter(Boolean);
  busy(event.submitter, async () => {
    const current = diffs.next();
    $("diff-error").hidden = true;
    $("diff-result").hidden = true;
    let diff;
    try {
      diff = await api.diffVersions(dataset.id, from, to, { key });
    } catch (error) {
      if (!current()) return;
      // "Key values repeat: ...", "Dataset file is not tabular", ...
      $("diff-error").textContent = error instanceof DatahubError ? error.message : `${error}`;
      $("diff-error").hidden = false;
      return;
    }
    if (current()) render(diff, key);
  });
});
