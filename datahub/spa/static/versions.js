// A dataset's versions, newest first: number, date, file, size, message and whether it is
// pinned, each with a Download button. Those who may change the dataset also get Restore
// (for a version that is not the current one), Pin or Unpin, and a form to upload a new
// version.
import { $, busy, button, cell, lastOnly, say, size, when } from "./ui.js";

const VERSIONS_SHOWN = 100;
const loads = lastOnly(); // an older answer arriving late is dropped
let askedFor = null; // the dataset whose versions were asked for last
let shown = null; // what showVersions was last given: {api, dataset, mayChange, onChange}

export function clearVersions() {
  loads.drop();
  askedFor = null;
  shown = null;
  $("versions").replaceChildren();
  $("versions-total").textContent = "";
  $("versions-none").hidden = true;
  $("version-form").hidden = true;
}

/**
 * Show `dataset`'s versions and resolve to them (newest first; null when another dataset
 * was asked for meanwhile). mayChange: whether the user may change the dataset;
 * onChange(): called after a new version was made here, to show the dataset anew.
 */
export async function showVersions(api, dataset, { mayChange, onChange }) {
  const current = loads.next();
  askedFor = dataset.id;
  const page = dataset.current_version === null
    ? { items: [], total: 0 }
    : await api.listVersions(dataset.id, { limit: VERSIONS_SHOWN });
  if (!current()) return null;
  shown = { api, dataset, mayChange, onChange };
  $("versions").replaceChildren(...page.items.map((version) => versionRow(shown, version)));
  $("versions-total").textContent = page.total > page.items.length
    ? `(newest ${page.items.length} of ${page.total})` : `(${page.total})`;
  $("versions-none").hidden = page.total > 0;
  $("version-form").hidden = !mayChange;
  return page.items;
}

function versionRow(context, version) {
  const { api, dataset, mayChange, onChange } = context;
  const isCurrent = version.version === dataset.current_version;
  const row = document.createElement("tr");
  row.dataset.version = version.version;
  const number = cell(row, version.version);
  if (isCurrent) {
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.textContent = "current";
    number.append(" ", badge);
  }
  cell(row, when(version.created_at));
  cell(row, version.filename);
  cell(row, size(version.size_bytes));
  const made = version.run_id !== null ? `output of run ${version.run_id}` : "";
  if (version.message !== null) cell(row, version.message);
  else cell(row, made).className = "muted"; // no message: whether a run made it
  cell(row, version.pinned ? "pinned" : "");
  const actions = cell(row, "");
  actions.className = "actions";
  actions.append(button("Download", "download", () => download(api, dataset, version)));
  if (mayChange && !isCurrent) {
    actions.append(button("Restore", "restore", async () => {
      const restored = await api.restoreVersion(dataset.id, version.version);
      await onChange();
      say(`Restored version ${version.version} as version ${restored.version}.`);
    }));
  }
  if (mayChange) {
    actions.append(button(version.pinned ? "Unpin" : "Pin", "pin", async () => {
      const changed = await api.updateVersion(dataset.id, version.version, {
        pinned: !version.pinned,
      });
      if (askedFor === dataset.id) await showVersions(api, dataset, context);
      say(`${changed.pinned ? "Pinned" : "Unpinned"} version ${version.version}.`);
    }));
  }
  return row;
}

// The bytes come with the access token (a plain link would have none), then are saved
// through a temporary object URL under the version's file name.
async function download(api, dataset, version) {
  const blob = await api.downloadVersionFile(dataset.id, version.version);
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = version.filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60000);
}

$("version-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const { api, dataset, onChange } = shown;
  busy(event.submitter, async () => {
    const file = $("version-file").files[0];
    say(`Uploading ${file.name}…`);
    const message = $("version-message").value.trim();
    const changed = await api.uploadDatasetFile(dataset.id, file, { message });
    event.target.reset();
    await onChange();
    say(`Uploaded ${file.name} as version ${changed.current_version}.`);
  });
});
