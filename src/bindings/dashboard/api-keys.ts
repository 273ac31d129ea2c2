/**
 * The platform API keys screen: keys listed without secrets, a new key's secret only in the body of
 * the POST that made it (never a URL or a redirect; the page is no-store), and revocation behind a
 * confirmation page.
 */
import { html, readForm } from '../../web/index.js';
import type { DashboardApp, Screens } from './kit.js';
import { viewOf, type ApiKeyView } from './views.js';

export function mountApiKeys(app: DashboardApp, s: Screens): void {
  const keyRow = (k: ApiKeyView) =>
    html`<tr><td>${k.label}</td><td data-col="Key id"><code>${k.id}</code></td><td data-col="Created">${s.when(Date.parse(k.created_at))}</td>
<td>${k.revoked_at ? html`<span class="state s-canceled">revoked</span> <small>${s.when(Date.parse(k.revoked_at))}</small>` : html`<span class="state s-confirmed">active</span>`}</td>
<td>${k.revoked_at ? '' : html`<a class="button danger" href="/admin/ui/api-keys/${encodeURIComponent(k.id)}/revoke">Revoke…</a>`}</td></tr>`;
  const listed = async (c: Parameters<Screens['run']>[0]) => {
    const res = await s.run(c, 'api_keys', {});
    return res.ok ? viewOf<{ api_keys: ApiKeyView[] }>(res.data).api_keys : [];
  };

  app.get('/admin/ui/api-keys', async (c) => {
    const keys = await listed(c);
    return s.view(
      c,
      'API keys',
      '/admin/ui/api-keys',
      html`<h1>Platform API keys</h1>${s.flash(c)}<section class="card" aria-labelledby="h-new"><h2 id="h-new">Create a key</h2><form class="stack" id="new-key" method="post" action="/admin/ui/api-keys">${s.csrfField(c)}
<label>Whose key (the platform)<input name="label" required maxlength="200"></label><button class="primary" type="submit">Create key</button></form>
<p class="note">A platform sends its key as a Bearer token. The key is shown once, on the next page; only a hash of it is kept.</p></section>
<section class="card" aria-labelledby="h-keys"><h2 id="h-keys">Keys</h2>${
        keys.length
          ? html`<table class="list"><thead><tr><th>Platform</th><th>Key id</th><th>Created</th><th>State</th><th><span class="sr-only">Actions</span></th></tr></thead><tbody>${keys.map(keyRow)}</tbody></table>`
          : html`<p class="note">No keys created here yet.</p>`
      }</section>`,
    );
  });
  app.post('/admin/ui/api-keys', async (c) => {
    const form = await readForm(c);
    const res = await s.run(c, 'api_key_create', { label: typeof form.label === 'string' ? form.label : '' });
    if (!res.ok) return s.back(c, '/admin/ui/api-keys', res, 'removed');
    const key = viewOf<{ api_key: ApiKeyView; secret: string }>(res.data);
    // The secret is in this page only: the page is no-store, and nothing redirects with it.
    return s.view(
      c,
      'New API key',
      '/admin/ui/api-keys',
      html`<h1>New key for ${key.api_key.label}</h1><section class="card" aria-labelledby="h-secret"><h2 id="h-secret">Copy the key now</h2>
<p class="secret"><code id="secret">${key.secret}</code></p>
<p>Give it to ${key.api_key.label} over a safe channel. <strong>It is not shown again</strong>: only its hash is kept. If it is lost, revoke it and create another.</p>
<dl><dt>Key id</dt><dd><code>${key.api_key.id}</code></dd><dt>Created</dt><dd>${s.when(Date.parse(key.api_key.created_at))}</dd></dl>
<p class="actions"><a class="button" href="/admin/ui/api-keys">Done, back to the keys</a></p></section>`,
    );
  });
  app.get('/admin/ui/api-keys/:id/revoke', async (c) => {
    const key = (await listed(c)).find((k) => k.id === c.req.param('id'));
    if (!key || key.revoked_at)
      return s.view(
        c,
        'API keys',
        '/admin/ui/api-keys',
        html`<h1>No such active key</h1><p><a href="/admin/ui/api-keys">Back to the keys</a></p>`,
        404,
      );
    return s.view(
      c,
      'Revoke a key',
      '/admin/ui/api-keys',
      html`<h1>Revoke the key of ${key.label}?</h1><section class="card" aria-labelledby="h-sure"><h2 id="h-sure">This cannot be undone</h2>
<p>Every call made with key <code>${key.id}</code> is refused from the moment you revoke it; ${key.label} needs a new key to go on.</p>
<div class="actions"><form class="inline" method="post" action="/admin/ui/api-keys/${encodeURIComponent(key.id)}/revoke">${s.csrfField(c)}<button class="danger" type="submit">Revoke the key</button></form>
<a class="button" href="/admin/ui/api-keys">Keep it</a></div></section>`,
    );
  });
  app.post('/admin/ui/api-keys/:id/revoke', async (c) =>
    s.back(c, '/admin/ui/api-keys', await s.run(c, 'api_key_revoke', { key_id: c.req.param('id') }), 'api_key_revoked'),
  );
}
