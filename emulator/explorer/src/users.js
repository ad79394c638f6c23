// A database's users and their permissions: create and delete them, and read each permission's
// resource token (what an application hands to a client instead of the key).
import { useState } from "preact/hooks";
import { html, ErrorNote, Field, useLoad } from "./ui.js";
import { request, link, readAll } from "./rest.js";

export function UsersView({ db, version }) {
  const users = useLoad(() => readAll(link("dbs", db, "users"), "Users"), [db, version]);
  const colls = useLoad(() => readAll(link("dbs", db, "colls"), "DocumentCollections"), [db, version]);
  const [userId, setUserId] = useState("");
  const [selected, setSelected] = useState(null);
  const [error, setError] = useState(null);
  const perms = useLoad(() => (selected ? readAll(link("dbs", db, "users", selected, "permissions"), "Permissions") : Promise.resolve([])), [db, selected]);
  const [perm, setPerm] = useState({ id: "", mode: "Read", resource: "", pk: "" });

  const createUser = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      await request({ method: "POST", path: link("dbs", db, "users"), body: { id: userId } });
      setUserId("");
      users.reload();
    } catch (err) {
      setError(err);
    }
  };
  const deleteUser = async (id) => {
    setError(null);
    try {
      await request({ method: "DELETE", path: link("dbs", db, "users", id) });
      if (selected === id) setSelected(null);
      users.reload();
    } catch (err) {
      setError(err);
    }
  };
  const createPermission = async (e) => {
    e.preventDefault();
    setError(null);
    const body = { id: perm.id, permissionMode: perm.mode, resource: perm.resource };
    try {
      if (perm.pk.trim()) body.resourcePartitionKey = JSON.parse(perm.pk);
    } catch (err) {
      setError(`Partition key is not JSON: ${err.message}`);
      return;
    }
    try {
      await request({ method: "POST", path: link("dbs", db, "users", selected, "permissions"), body });
      perms.reload();
    } catch (err) {
      setError(err);
    }
  };
  const deletePermission = async (id) => {
    try {
      await request({ method: "DELETE", path: link("dbs", db, "users", selected, "permissions", id) });
      perms.reload();
    } catch (err) {
      setError(err);
    }
  };

  return html`<section>
    <h1>Users of ${db}</h1>
    <${ErrorNote} error=${users.error || error} id="users-error" />
    <table class="grid" aria-label="Users">
      <thead><tr><th scope="col">User</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${(users.data ?? []).map(
        (u) => html`<tr class=${selected === u.id ? "selected" : ""}><td><button class="link" onClick=${() => setSelected(u.id)}>${u.id}</button></td>
          <td><button class="danger small" onClick=${() => deleteUser(u.id)} aria-label=${`Delete user ${u.id}`}>Delete</button></td></tr>`,
      )}</tbody>
    </table>
    <form class="inline card" onSubmit=${createUser}>
      <${Field} label="New user id" id="user-id"><input id="user-id" value=${userId} onInput=${(e) => setUserId(e.target.value)} required /><//>
      <button type="submit">Create user</button>
    </form>
    ${selected
      ? html`<h2>Permissions of ${selected}</h2>
        <table class="grid" aria-label="Permissions">
          <thead><tr><th scope="col">Permission</th><th scope="col">Mode</th><th scope="col">Resource</th><th scope="col">Token</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>${(perms.data ?? []).map(
            (p) => html`<tr><td>${p.id}</td><td>${p.permissionMode}</td><td><code>${p.resource}</code></td>
              <td><code class="token">${p._token}</code></td>
              <td><button class="danger small" onClick=${() => deletePermission(p.id)} aria-label=${`Delete permission ${p.id}`}>Delete</button></td></tr>`,
          )}</tbody>
        </table>
        <form class="card" onSubmit=${createPermission} aria-labelledby="perm-title">
          <h3 id="perm-title">New permission</h3>
          <div class="row">
            <${Field} label="Id" id="perm-id"><input id="perm-id" value=${perm.id} onInput=${(e) => setPerm({ ...perm, id: e.target.value })} required /><//>
            <${Field} label="Mode" id="perm-mode">
              <select id="perm-mode" value=${perm.mode} onChange=${(e) => setPerm({ ...perm, mode: e.target.value })}><option>Read</option><option>All</option></select>
            <//>
            <${Field} label="Resource" id="perm-resource">
              <select id="perm-resource" value=${perm.resource} onChange=${(e) => setPerm({ ...perm, resource: e.target.value })} required>
                <option value="">(choose a container)</option>
                ${(colls.data ?? []).map((c) => html`<option value=${`dbs/${db}/colls/${c.id}`}>${c.id}</option>`)}
              </select>
            <//>
            <${Field} label="Partition key (JSON, optional)" id="perm-pk"><input id="perm-pk" value=${perm.pk} onInput=${(e) => setPerm({ ...perm, pk: e.target.value })} /><//>
          </div>
          <button type="submit">Create permission</button>
        </form>`
      : null}
  </section>`;
}
