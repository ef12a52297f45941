// The Tokens page (#tokens): the user's personal access tokens (name, scopes, dates, a
// Revoke button each) and a form for a new one, whose secret is shown once, with a Copy
// button and a warning: the service keeps only its hash, and the page forgets it as soon
// as it is left.
import { $, busy, button, cell, lastOnly, say, when } from "./ui.js";

const loads = lastOnly();
let shownApi = null;

export function clearTokens() {
  loads.drop();
  shownApi = null;
  $("tokens").replaceChildren();
  $("tokens-total").textContent = "";
  hideSecret();
}

function hideSecret() {
  $("token-secret").textContent = "";
  $("token-secret-area").hidden = true;
}

/** List the user's tokens (the secret of one just made stays shown). */
export async function showTokens(api) {
  const current = loads.next();
  const page = await api.listTokens();
  if (!current()) return;
  shownApi = api;
  $("tokens").replaceChildren(...page.items.map((token) => tokenRow(api, token)));
  $("tokens-total").textContent = `(${page.total})`;
  $("tokens-none").hidden = page.total > 0;
}

function tokenRow(api, token) {
  const row = document.createElement("tr");
  row.dataset.id = token.id;
  cell(row, token.name);
  cell(row, token.scopes.join(", "));
  cell(row, when(token.created_at));
  cell(row, token.expires_at ? when(token.expires_at) : "never");
  cell(row, token.last_used_at ? when(token.last_used_at) : "never");
  const actions = cell(row, "");
  actions.className = "actions";
  actions.append(button("Revoke", "revoke", async () => {
    if (!window.confirm(`Revoke the token "${token.name}"? Whatever uses it stops working.`)) {
      return;
    }
    await api.revokeToken(token.id);
    await showTokens(api);
    say(`Revoked the token "${token.name}".`);
  }));
  return row;
}

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const api = shownApi;
  if (!api) return;
  busy(event.submitter, async () => {
    const scopes = $("token-scope").value === "read" ? ["read"] : ["read", "write"];
    const made = await api.createToken({
      name: $("token-name").value.trim(), scopes, expiresInDays: Number($("token-days").value),
    });
    event.target.reset();
    $("token-secret").textContent = made.token;
    $("token-secret-area").hidden = false;
    await showTokens(api);
    say(`Created the token "${made.name}". Copy it now: it will not be shown again.`);
  });
});

$("token-copy").addEventListener("click", (event) => busy(event.target, async () => {
  const secret = $("token-secret").textContent;
  try {
    await navigator.clipboard.writeText(secret);
    say("Copied the token to the clipboard.");
  } catch (error) { // no clipboard (not allowed, or not a secure context): select it
    window.getSelection().selectAllChildren($("token-secret"));
    say("Select-and-copy: the token is selected (Ctrl+C or ⌘C).");
  }
}));
