// Sharing on a dataset's page, for those who may manage it (its owner, an editor, or an
// admin, as the service decides): its visibility (private or internal) with a button that
// switches it, the grants (who, read or write, since when; Remove) and a form to share it
// with a user (an email or a user id) or a group (name or id).
import { DatahubError } from "./datahub-client.js";
import { $, busy, button, cell, lastOnly, say, when } from "./ui.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const VISIBILITY = {
  private: "Private: its owner, those it is shared with and admins see it.",
  internal: "Internal: every user sees it.",
};
const loads = lastOnly();
let shown = null; // {api, dataset, user, groups, onChange}

export function clearSharing() {
  loads.drop();
  shown = null;
  $("sharing-area").hidden = true;
  $("grants").replaceChildren();
  $("grant-groups").replaceChildren();
}

/**
 * Show the sharing of `dataset` if `mayManage`; user: who is logged in (GET /auth/me);
 * onChange(): called after the visibility changed (the list shows it too).
 */
export async function showSharing(api, dataset, { mayManage, user, onChange }) {
  if (!mayManage) {
    clearSharing();
    return;
  }
  const current = loads.next();
  const [page, groups] = await Promise.all([api.listGrants("dataset", dataset.id), groupsOf(api)]);
  const names = await Promise.all(page.items.map((grant) => principalName(api, user, groups, grant)));
  if (!current()) return;
  shown = { api, dataset, user, groups, onChange };
  $("visibility-state").textContent = VISIBILITY[dataset.visibility] ?? dataset.visibility;
  $("visibility-toggle").textContent = dataset.visibility === "private"
    ? "Make internal" : "Make private";
  $("grants").replaceChildren(...page.items.map((grant, i) => grantRow(grant, names[i])));
  $("grants-none").hidden = page.items.length > 0;
  $("grant-groups").replaceChildren(...groups.map((group) => {
    const option = document.createElement("option");
    option.value = group.name;
    return option;
  }));
  $("sharing-area").hidden = false;
}

// The groups to share with; none where the service has no groups API (yet).
async function groupsOf(api) {
  try {
    return (await api.listGroups()).items;
  } catch (error) {
    if (error instanceof DatahubError && [403, 404, 405].includes(error.status)) return [];
    throw error;
  }
}

// "ann@example.com" for a user (admins may look users up; others see the id), "you", or a
// group's name.
async function principalName(api, user, groups, grant) {
  const [kind, id] = grant.principal.split(":");
  if (kind === "group") {
    const group = groups.find((g) => String(g.id) === id);
    return group ? `group ${group.name}` : `group ${id}`;
  }
  if (id === user.id) return `${user.email} (you)`;
  if (!user.roles.includes("admin")) return `user ${id}`;
  try {
    return (await api.get(`/api/v1/users/${id}`)).email;
  } catch (error) {
    return `user ${id}`;
  }
}

function grantRow(grant, name) {
  const row = document.createElement("tr");
  row.dataset.id = grant.id;
  cell(row, name).title = grant.principal;
  cell(row, grant.permission === "write" ? "read and write" : "read");
  cell(row, when(grant.created_at));
  const actions = cell(row, "");
  actions.className = "actions";
  actions.append(button("Remove", "remove-grant", async () => {
    const { api, dataset } = shown;
    await api.removeGrant("dataset", dataset.id, grant.id);
    await reload();
    say(`Stopped sharing with ${name}.`);
  }));
  return row;
}

async function reload() {
  const { api, dataset, user, onChange } = shown;
  await showSharing(api, dataset, { mayManage: true, user, onChange });
}

// The principal the form names: a user by id or email (the service keeps the id), a group
// by id or name.
function principalOf(kind, who, groups) {
  if (kind === "group") {
    const group = groups.find((g) => g.name === who);
    if (group) return `group:${group.id}`;
    if (/^[1-9][0-9]*$/.test(who)) return `group:${who}`;
    throw new Error(`No group ${who}`);
  }
  return UUID.test(who) ? `user:${who.toLowerCase()}` : `user:${who}`;
}

$("grant-kind").addEventListener("change", () => {
  $("grant-who").placeholder = $("grant-kind").value === "group"
    ? "group name or id" : "email or user id";
});

$("grant-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const { api, dataset, groups } = shown;
  busy(event.submitter, async () => {
    const who = $("grant-who").value.trim();
    const principal = principalOf($("grant-kind").value, who, groups);
    const permission = $("grant-permission").value;
    await api.addGrant("dataset", dataset.id, { principal, permission });
    $("grant-who").value = "";
    await reload();
    say(`Shared "${dataset.name}" with ${who} (${permission}).`);
  });
});

$("visibility-toggle").addEventListener("click", (event) => {
  const { api, dataset, onChange } = shown;
  busy(event.target, async () => {
    const visibility = dataset.visibility === "private" ? "internal" : "private";
    await api.setVisibility("dataset", dataset.id, visibility);
    await onChange();
    say(`"${dataset.name}" is now ${visibility}.`);
  });
});
