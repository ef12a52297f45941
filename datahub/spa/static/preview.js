// The first rows of a dataset's file (a dataset of the list, or a run's output) in the
// table below the list: a header of column names and types, then the rows. An error (404
// "Dataset has no file", 422 "Dataset file is not tabular", ...) shows its detail there.
import { DatahubError } from "./datahub-client.js";
import { $, lastOnly, valuesRow } from "./ui.js";

const PREVIEW_ROWS = 50;
const previews = lastOnly(); // an older answer arriving late is dropped

function rowCount(count) {
  if (count === 0) return "no rows";
  return `first ${count} row${count === 1 ? "" : "s"}`;
}

export function clearPreview() {
  previews.drop();
  $("preview-area").hidden = true;
  $("preview-head").replaceChildren();
  $("preview-rows").replaceChildren();
  for (const row of document.querySelectorAll("tr.selected")) row.classList.remove("selected");
}

function open(title, selectedRow) {
  clearPreview();
  if (selectedRow) selectedRow.classList.add("selected");
  $("preview-area").hidden = false;
  $("preview-title").textContent = title;
  $("preview-error").hidden = true;
}

export async function showPreview(api, datasetId, title, selectedRow) {
  open(title, selectedRow);
  const current = previews.next();
  $("preview-note").textContent = "Loading…";
  let preview;
  try {
    preview = await api.previewDataset(datasetId, PREVIEW_ROWS);
  } catch (error) {
    if (!current()) return;
    $("preview-note").textContent = "";
    $("preview-error").textContent = error instanceof DatahubError ? error.message : `${error}`;
    $("preview-error").hidden = false;
    return;
  }
  if (!current()) return;
  const head = document.createElement("tr");
  for (const column of preview.columns) {
    const th = document.createElement("th");
    const name = document.createElement("span");
    name.className = "column-name";
    name.textContent = column.name;
    const type = document.createElement("span");
    type.className = "column-type muted";
    type.textContent = column.type;
    th.append(name, type);
    head.appendChild(th);
  }
  $("preview-head").replaceChildren(head);
  $("preview-rows").replaceChildren(...preview.rows.map(valuesRow));
  $("preview-note").textContent = `${rowCount(preview.rows.length)} · ${preview.format}`;
}

// A dataset without a file: said where its preview would be.
export function showNoFile(title, selectedRow) {
  open(title, selectedRow);
  $("preview-note").textContent = "";
  $("preview-error").textContent = "This dataset has no file yet.";
  $("preview-error").hidden = false;
}
