// The datahub single-page app: log in, show the user, list and upload datasets, list the
// pipelines and preview a run's output. A dataset's page (#dataset/ID, below the list)
// shows its preview, its versions, a diff between two of them, its sharing (to those who
// may manage it) and its lineage; the Tokens page (#tokens) the personal access tokens.
// Everything that talks to the service goes through datahub-client.js; the parts of a
// dataset's page are modules of their own (preview.js, versions.js, diff.js, sharing.js,
// lineage.js), and so is the Tokens page (tokens.js). While someone is logged in the app
// follows the live events (live.js): the lists and the open dataset's page show what
// happens elsewhere (a run's status, a new version) without a reload.
import { DatahubClient, DatahubError } from "./datahub-client.js";
import { clearDiff, setUpDiff } from "./diff.js";
import { clearLineage, showLineage } from "./lineage.js";
import { follow, stop as stopFollowing } from "./live.js";
import { clearPreview, showNoFile, showPreview } from "./preview.js";
import { clearSharing, showSharing } from "./sharing.js";
import { clearTokens, showTokens } from "./tokens.js";
import { $, busy, cell, endSession, fail, lastOnly, say, size, when } from "./ui.js";
import { clearVersions, showVersions } from "./versions.js";

const CREATING_ROLES = ["editor", "admin"]; // a viewer only reads: no create form
let user = null; // who is logged in (GET /auth/me)
let datasets = new Map(); // the listed datasets by id
const pipelineNames = new Map(); // the listed pipelines' names by id
const listedPipelines = new Map(); // the listed pipelines by id: {pipeline, run} (latest)
let shownDatasetId = null; // whose page is open (or being opened) below the list
let shownDataset = null; // that dataset as its page shows it (null while it is asked for)
const datasetLoads = lastOnly(); // a list's older answer arriving late is dropped
const pipelineLoads = lastOnly();
let showing = Promise.resolve(); // the app's own showing anew in flight: see own()
const api = new DatahubClient("", {
  onSessionEnd: () => {
    endSession(); // the failing request's own error need not be shown as well
    showLogin("Your session has ended; please log in again.");
  },
});

function showLogin(message = "") {
  stopFollowing();
  user = null;
  $("user").hidden = true;
  $("datasets-view").hidden = true;
  $("tokens-view").hidden = true;
  $("login-view").hidden = false;
  closeDatasetPage();
  clearTokens();
  say(message, Boolean(message));
}

// As the service decides (datahub/identity/permissions.py): an admin may change every
// dataset, an editor the ones it owns, a viewer none.
function mayChange(dataset) {
  return user.roles.includes("admin")
    || (user.roles.includes("editor") && dataset.owner_id === user.id);
}

// Who sees and changes a dataset's visibility and grants (datahub/resources/views.py): its
// owner, if an editor, and admins.
function mayManage(dataset) {
  return user.roles.includes("admin")
    || (user.roles.includes("editor") && dataset.owner_id === user.id);
}

function closeDatasetPage() {
  shownDatasetId = null;
  shownDataset = null;
  clearPreview();
  clearVersions();
  clearDiff();
  clearSharing();
  clearLineage();
  $("dataset-area").hidden = true;
}

// A dataset's page: its preview (or that it has no file), its versions, the diff form
// (two versions or more) and its lineage. A dataset beyond the listed ones is asked for.
async function openDataset(datasetId) {
  closeDatasetPage();
  shownDatasetId = datasetId;
  const dataset = datasets.get(datasetId) ?? (await api.getDataset(datasetId));
  if (shownDatasetId !== datasetId) return; // another one was asked for meanwhile
  shownDataset = dataset;
  const row = document.querySelector(`#datasets tr[data-id='${datasetId}']`);
  $("dataset-area").hidden = false;
  const changes = { mayChange: mayChange(dataset), onChange: () => refresh(datasetId) };
  await Promise.all([
    dataset.file ? showPreview(api, dataset.id, dataset.name, row) : showNoFile(dataset.name, row),
    showVersions(api, dataset, changes).then((versions) => {
      if (versions) setUpDiff(api, dataset, versions);
    }),
    showSharing(api, dataset, { mayManage: mayManage(dataset), user, onChange: changes.onChange }),
    showLineage(api, dataset, pipelineNames),
  ]);
}

// After a new version (an upload or a restore): the lists and the dataset's page anew.
function refresh(datasetId) {
  return own(async () => {
    await showMain();
    if (shownDatasetId === datasetId) await openDataset(datasetId);
  });
}

// The app's own showing anew, after a login or a change made here: a burst of live events
// waits for it before comparing, so that the events of this page's own changes find them
// shown already (and the page is not shown anew twice).
function own(work) {
  const done = work();
  showing = Promise.all([showing, done.catch(() => {})]);
  return done;
}

// The address says whose page is open: #dataset/ID. A click on a row goes there, and so do
// a version in a lineage, the back button and a bookmark.
function datasetInAddress() {
  const match = /^#dataset\/(\d+)$/.exec(window.location.hash);
  return match ? Number(match[1]) : null;
}

function tokensInAddress() {
  return window.location.hash === "#tokens";
}

// #tokens: the Tokens page instead of the lists; anything else: the lists (and the
// dataset's page of #dataset/ID). The secret of a new token is forgotten on the way out.
async function route() {
  const onTokens = tokensInAddress();
  $("tokens-view").hidden = !onTokens;
  $("datasets-view").hidden = onTokens;
  $("nav-tokens").classList.toggle("current", onTokens);
  $("nav-datasets").classList.toggle("current", !onTokens);
  if (onTokens) {
    closeDatasetPage();
    await showTokens(api);
    return;
  }
  clearTokens();
  const datasetId = datasetInAddress();
  if (datasetId === null) closeDatasetPage();
  else await openDataset(datasetId);
}

function goToDataset(datasetId) {
  const address = `#dataset/${datasetId}`;
  if (window.location.hash === address) busy(null, () => openDataset(datasetId)); // anew
  else window.location.hash = address; // the hashchange below opens it
}

window.addEventListener("hashchange", () => {
  if (user) busy(null, route);
});

function datasetRow(dataset) {
  const row = document.createElement("tr");
  row.dataset.id = dataset.id;
  cell(row, dataset.id);
  cell(row, dataset.name);
  cell(row, dataset.tags.join(", "));
  cell(row, dataset.file ? dataset.file.filename : "—");
  cell(row, dataset.file ? size(dataset.file.size_bytes) : "—");
  cell(row, dataset.file ? when(dataset.file.uploaded_at) : "—");
  row.tabIndex = 0;
  row.title = "Show its page: first rows, versions, lineage";
  if (dataset.id === shownDatasetId) row.classList.add("selected");
  row.addEventListener("click", () => goToDataset(dataset.id));
  row.addEventListener("keydown", (event) => {
    if (event.key === "Enter") goToDataset(dataset.id);
  });
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
      closeDatasetPage(); // the preview alone, no dataset's page: the address says so too
      if (datasetInAddress() !== null) window.history.pushState(null, "", window.location.pathname);
      await showPreview(api, run.output_dataset_id, title, row);
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

async function showDatasets() {
  const current = datasetLoads.next();
  const page = await api.listDatasets({ limit: 100 });
  if (!current()) return;
  datasets = new Map(page.items.map((dataset) => [dataset.id, dataset]));
  $("datasets").replaceChildren(...page.items.map(datasetRow));
  $("total").textContent = `(${page.total})`;
}

async function showPipelines() {
  const current = pipelineLoads.next();
  const pipelines = await api.listPipelines({ limit: 100 });
  const runs = await Promise.all(pipelines.items.map(latestRun));
  if (!current()) return;
  listedPipelines.clear();
  pipelines.items.forEach((pipeline, i) => {
    pipelineNames.set(pipeline.id, pipeline.name);
    listedPipelines.set(pipeline.id, { pipeline, run: runs[i] });
  });
  $("pipelines").replaceChildren(...pipelines.items.map((item, i) => pipelineRow(item, runs[i])));
  $("pipelines-total").textContent = `(${pipelines.total})`;
}

// The user and the lists are loaded together: after the access token expired, they all get
// a 401 at once and share one refresh.
async function showMain() {
  const [me] = await Promise.all([api.me(), showDatasets(), showPipelines()]);
  user = me;
  $("user-email").textContent = user.email;
  $("user-roles").textContent = user.roles.join(", ");
  $("user").hidden = false;
  $("create-area").hidden = !user.roles.some((role) => CREATING_ROLES.includes(role));
  $("login-view").hidden = true;
  $("datasets-view").hidden = tokensInAddress();
}

// -- what happens elsewhere (the live events of live.js) -------------------------------

const VERSION_CREATED = "datahub.dataset.version.created";
const DATASET_DELETED = "datahub.dataset.deleted";
const RUN_SUCCEEDED = "datahub.run.succeeded";

function datasetOf(event) {
  return event.type === VERSION_CREATED ? event.data.dataset_id : event.data.id;
}

// Whether the datasets' list shows less than a dataset's event says (an update may have
// changed tags or description, which its event does not say).
function listMisses(event) {
  const listed = datasets.get(datasetOf(event));
  if (event.type === "datahub.dataset.created") return !listed;
  if (event.type === DATASET_DELETED) return Boolean(listed);
  if (event.type === VERSION_CREATED) {
    return !listed || (listed.current_version ?? 0) < event.data.version;
  }
  return true;
}

// Whether the open dataset's page shows less than its event says: a newer version, or
// another name, owner or visibility.
function pageMisses(event) {
  if (!shownDataset) return true; // still being asked for
  if (event.type === VERSION_CREATED) {
    return (shownDataset.current_version ?? 0) < event.data.version;
  }
  return ["name", "owner_id", "visibility", "current_version"]
    .some((key) => event.data[key] !== shownDataset[key]);
}

// Whether the pipelines' list shows less than a pipeline's event says (an update may have
// changed its source, which its event does not say).
function pipelinesMiss(event) {
  const listed = listedPipelines.has(event.data.id);
  if (event.type === "datahub.pipeline.created") return !listed;
  if (event.type === "datahub.pipeline.deleted") return listed;
  return true;
}

// A run's event says its state: shown in its pipeline's row if it is the latest run there.
function showRun(run) {
  const listed = listedPipelines.get(run.pipeline_id);
  if (!listed || (listed.run && listed.run.id > run.id)) return; // not listed; an older run
  if (listed.run && listed.run.id === run.id && listed.run.status === run.status) return;
  const old = document.querySelector(`#pipelines tr[data-id='${run.pipeline_id}']`);
  if (!old) return;
  listed.run = run;
  const row = pipelineRow(listed.pipeline, run);
  if (old.classList.contains("selected")) row.classList.add("selected"); // its output's preview
  old.replaceWith(row);
}

// A burst of live events: the lists and the open dataset's page are shown anew where they
// show less than the events say; what this page changed itself it has shown already.
function showEvents(events) {
  return busy(null, async () => {
    await showing;
    if (!user) return; // logged out meanwhile
    const of = (kind) => events.filter((event) => event.type.startsWith(`datahub.${kind}.`));
    const [ofDatasets, ofPipelines, ofRuns] = [of("dataset"), of("pipeline"), of("run")];
    const pageId = shownDatasetId;
    const ofPage = ofDatasets.filter((event) => datasetOf(event) === pageId);
    const pageMissed = ofPage.some(pageMisses);
    const lists = [];
    if (ofDatasets.some(listMisses)) lists.push(showDatasets());
    if (ofPipelines.some(pipelinesMiss)) lists.push(showPipelines()); // their runs too
    else for (const event of ofRuns) showRun(event.data);
    await Promise.all(lists);
    if (pageId === null || shownDatasetId !== pageId) return; // none open, or another now
    const readIt = (event) => event.type === RUN_SUCCEEDED
      && listedPipelines.get(event.data.pipeline_id)?.pipeline.source_dataset_id === pageId;
    if (ofPage.some((event) => event.type === DATASET_DELETED)) {
      closeDatasetPage();
      window.history.replaceState(null, "", window.location.pathname);
      say(`Dataset ${pageId} was deleted.`);
    } else if (pageMissed) {
      await openDataset(pageId);
    } else if (shownDataset && ofRuns.some(readIt)) {
      await showLineage(api, shownDataset, pipelineNames); // a run read it: downstream grew
    }
  });
}

$("login-form").addEventListener("submit", (event) => {
  event.preventDefault();
  busy(event.submitter, async () => {
    await api.login($("email").value, $("password").value);
    $("password").value = "";
    follow(api, showEvents); // from now on: what changes while the lists load is shown too
    await own(showMain);
    say("Logged in.");
    await route(); // a dataset's page in the address: shown once logged in
  });
});

$("logout").addEventListener("click", (event) => busy(event.target, async () => {
  stopFollowing();
  await api.logout();
  clearTokens();
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
    await own(showMain);
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
  if (!loggedIn) {
    showLogin();
    return;
  }
  follow(api, showEvents);
  await own(showMain);
  busy(null, route); // a dataset's page in the address; its errors are said, no login asked
}).catch((error) => { showLogin(); fail(error); });
