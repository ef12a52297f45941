// The datahub single-page app: log in, show the user, list and upload datasets.
// Everything that talks to the service goes through datahub-client.js.
import { DatahubClient, DatahubError } from "./datahub-client.js";

const $ = (id) => document.getElementById(id);
let sessionEnded = false;
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

// The user and the list are loaded together: after the access token expired, both get a
// 401 at once and share one refresh.
async function showMain() {
  const [user, page] = await Promise.all([api.me(), api.listDatasets({ limit: 100 })]);
  $("user-email").textContent = user.email;
  $("user-roles").textContent = user.roles.join(", ");
  $("user").hidden = false;
  $("login-view").hidden = true;
  $("datasets-view").hidden = false;
  const rows = page.items.map((dataset) => {
    const row = document.createElement("tr");
    row.dataset.id = dataset.id;
    cell(row, dataset.id);
    cell(row, dataset.name);
    cell(row, dataset.tags.join(", "));
    cell(row, dataset.file ? dataset.file.filename : "—");
    cell(row, dataset.file ? size(dataset.file.size_bytes) : "—");
    cell(row, dataset.file ? new Date(dataset.file.uploaded_at).toLocaleString() : "—");
    return row;
  });
  $("datasets").replaceChildren(...rows);
  $("total").textContent = `(${page.total})`;
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
