// The datahub single-page app: log in, show the user, list and upload datasets, preview
// a dataset's file, list the pipelines and preview a run's output.
// Everything that talks to the service goes through datahub-client.js.
import { DatahubClient, DatahubError } from "./datahub-client.js";

const $ = (id) => document.getElementById(id);
const PREVIEW_ROWS = 50;
const CREATING_ROLES = ["editor", "admin"]; // a viewer only reads: no create form
let sessionEnded = false;
let previewTicket = 0; // the preview asked for last: an older answer arriving late is dropped
const api = new DatahubClient("", {
  onSessionEnd: () => {
    sessionEnded = true; // the failing request's own error need not be shown as well
    showLogin("Your session has ended; please log in again.");
  },
});

function say(message, isError = false) {
  $("status").textContent = message;
  $("status").classList.toggle("error", isError);
}

function fail(error) {
  say(error instanceof DatahubError ? `Error: ${error.message}` : `Error: ${error}`, true);
}

function showLogin(message = "") {
  $("user").hidden = true;
  $("datasets-view").hidden = true;
  $("login-view").hidden = false;
  clearPreview();
  say(message, Boolean(message));
}

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.appendChild(td);
}

function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function clearPreview() {
  previewTicket += 1;
  $("preview-area").hidden = true;
  $("preview-head").replaceChildren();
  $("preview-rows").replaceChildren();
  for (const row of document.querySelectorAll("tr.selected")) row.classList.remove("selected");
}

function valueText(value) {
  if (value === null) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function rowCount(count) {
  if (count === 0) return "no rows";
  return `first ${count} row${count === 1 ? "" : "s"}`;
}

// The first rows of a dataset's file (one of the list, or a run's output) in the table
// below the list: a header of column names and types, then the rows. An error (404 "Dataset
// has no file", 422 "Dataset file is not tabular", ...) shows its detail in the same place.
async function showPreview(datasetId, title, selectedRow) {
  clearPreview();
  const ticket = previewTicket;
  if (selectedRow) selectedRow.classList.add("selected");
  $("preview-area").hidden = false;
  $("preview-title").textContent = title;
  $("preview-note").textContent = "Loading…";
  $("preview-error").hidden = true;
  let preview;
  try {
    preview = await api.previewDataset(datasetId, PREVIEW_ROWS);
  } catch (error) {
    if (ticket !== previewTicket) return;
    $("preview-note").textContent = "";
    $("preview-error").textContent = error instanceof DatahubError ? error.message : `${error}`;
    $("preview-error").hidden = false;
    return;
  }
  if (ticket !== previewTicket) return;
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
  const rows = preview.rows.map((values) => {
    const row = document.createElement("tr");
    for (const value of values) {
      cell(row, valueText(value));
      if (value === null) row.lastChild.classList.add("null");
    }
    return row;
  });
  $("preview-head").replaceChildren(head);
  $("preview-rows").replaceChildren(...rows);
  $("preview-note").textContent = `${rowCount(preview.rows.length)} · ${preview.format}`;
}

// A dataset without a file: said where its preview would be.
function showNoFile(title, selectedRow) {
  clearPreview();
  selectedRow.classList.add("selected");
  $("preview-area").hidden = false;
  $("preview-title").textContent = title;
  $("preview-note").textContent = "";
  $("preview-error").textContent = "This dataset has no file yet.";
  $("preview-error").hidden = false;
}

function datasetRow(dataset) {
  const row = document.createElement("tr");
  row.dataset.id = dataset.id;
  cell(row, dataset.id);
  cell(row, dataset.name);
  cell(row, dataset.tags.join(", "));
  cell(row, dataset.file ? dataset.file.filename : "—");
  cell(row, dataset.file ? size(dataset.file.size_bytes) : "—");
  cell(row, dataset.file ? new Date(dataset.file.uploaded_at).toLocaleString() : "—");
  row.tabIndex = 0;
  if (dataset.file) {
    row.classList.add("previewable");
    row.title = "Show the first rows";
  }
  const open = () => (dataset.file
    ? showPreview(dataset.id, dataset.name, row) : showNoFile(dataset.name, row));
  row.addEventListener("click", open);
  row.addEventListener("keydown", (event) => { if (event.key === "Enter") open(); });
  return row;
}

// A pipeline with its latest run; a succeeded run's output can be previewed.
function pipelineRow(pipeline, run) {
  const row = document.createElement("tr");
  row.dataset.id = pipeline.id;
  cell(row, pipeline.id);
  cell(row, pipeline.name);
  cell(row, pipeline.source_dataset_id ?? "—");
  cell(row, run ? run.status : "never run");
  if (run && run.error) row.lastChild.title = run.error;
  cell(row, run && run.rows_out !== null ? run.rows_out : "—");
  const actions = document.createElement("td");
  if (run && run.status === "succeeded" && run.output_dataset_id !== null) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "preview-output";
    button.textContent = "Preview output";
    const title = `${pipeline.output_dataset_name} (output of ${pipeline.name})`;
    button.addEventListener("click", () => busy(button, async () => {
      await showPreview(run.output_dataset_id, title, row);
      $("preview-area").scrollIntoView({ block: "nearest" });
    }));
    actions.appendChild(button);
  }
  row.appendChild(actions);
  return row;
}

async function latestRun(pipeline) {
  try {
    return (await api.listRuns(pipeline.id, { limit: 1 })).items[0] || null;
  } catch (error) {
    if (error instanceof DatahubError && error.status === 404) return null; // deleted meanwhile
    throw error;
  }
}

// The user and the lists are loaded together: after the access token expired, they all get
// a 401 at once and share one refresh.
async function showMain() {
  const [user, page, pipelines] = await Promise.all([
    api.me(), api.listDatasets({ limit: 100 }), api.listPipelines({ limit: 100 }),
  ]);
  const runs = await Promise.all(pipelines.items.map(latestRun));
  $("user-email").textContent = user.email;
  $("user-roles").textContent = user.roles.join(", ");
  $("user").hidden = false;
  $("create-area").hidden = !user.roles.some((role) => CREATING_ROLES.includes(role));
  $("login-view").hidden = true;
  $("datasets-view").hidden = false;
  $("datasets").replaceChildren(...page.items.map(datasetRow));
  $("total").textContent = `(${page.total})`;
  $("pipelines").replaceChildren(...pipelines.items.map((item, i) => pipelineRow(item, runs[i])));
  $("pipelines-total").textContent = `(${pipelines.total})`;
}

async function busy(button, work) {
  button.disabled = true;
  sessionEnded = false;
  try {
    await work();
  } catch (error) {
    if (!sessionEnded) fail(error);
  } finally {
    button.disabled = false;
  }
}

$("login-form").addEventListener("submit", (event) => {
  event.preventDefault();
  busy(event.submitter, async () => {
    await api.login($("email").value, $("password").value);
    $("password").value = "";
    await showMain();
    say("Logged in.");
  });
});

$("logout").addEventListener("click", (event) => busy(event.target, async () => {
  await api.logout();
  $("datasets").replaceChildren();
  $("pipelines").replaceChildren();
  showLogin();
  say("Logged out.");
}));

$("reload").addEventListener("click", (event) => busy(event.target, async () => {
  await showMain();
  say(`Loaded at ${new Date().toLocaleTimeString()}.`);
}));

$("create-form").addEventListener("submit", (event) => {
  event.preventDefault();
  busy(event.submitter, async () => {
    const tags = $("tags").value.split(",").map((tag) => tag.trim()).filter(Boolean);
    const dataset = await api.createDataset({
      name: $("name").value, description: $("description").value, tags,
    });
    const file = $("file").files[0];
    if (file) {
      say(`Uploading ${file.name}…`);
      await api.uploadDatasetFile(dataset.id, file);
    }
    event.target.reset();
    await showMain();
    say(`Created dataset ${dataset.id}${file ? ` with ${file.name}` : ""}.`);
  });
});

// "Sign in with ..." when the service has an OIDC provider: the browser goes there and
// comes back to this page with the refresh cookie, which the boot below turns into a token.
api.providers().then(({ oidc }) => {
  if (!oidc) return;
  $("oidc-button").textContent = `Sign in with ${oidc.name}`;
  $("oidc-button").addEventListener("click", () => {
    window.location.assign(api.oidcLoginUrl(oidc, window.location.pathname));
  });
  $("oidc-login").hidden = false;
}).catch(() => {}); // the password form still works

// A reload (or a new tab) has no access token: get one through the refresh cookie.
api.restore().then(async (loggedIn) => {
  if (loggedIn) await showMain();
  else showLogin();
}).catch((error) => { showLogin(); fail(error); });
