/** The webhooks screen: the delivery log with retry of failed ones, and the signing keys with rotation. */
import { html } from '../../web/index.js';
import { badge, stamp, type DashboardApp, type Screens } from './kit.js';
import { viewOf, type DeliveryView, type SigningKeyView } from './views.js';

export function mountWebhooks(app: DashboardApp, s: Screens): void {
  app.get('/admin/ui/webhooks', async (c) => {
    const [res, keyRes] = [await s.run(c, 'deliveries', { limit: 100 }), await s.run(c, 'signing_keys', {})];
    const list = res.ok ? viewOf<{ deliveries: DeliveryView[] }>(res.data).deliveries : [];
    const rows = list.map(
      (
        d,
      ) => html`<tr><td>${stamp(s, d.created_at)}</td><td>${d.event}</td><td>${badge(d.status)}</td><td data-col="Attempts">${d.attempts}</td>
<td data-col="Last answer">${d.last_status ?? d.last_error ?? ''}</td><td class="note">${d.target_url}</td>
<td>${d.status === 'failed' ? html`<form class="inline" method="post" action="/admin/ui/webhooks/${d.id}/retry">${s.csrfField(c)}<button type="submit">Retry</button></form>` : ''}</td></tr>`,
    );
    const keys = keyRes.ok ? viewOf<{ keys: SigningKeyView[] }>(keyRes.data).keys : [];
    const keyRows = keys.map(
      (k) =>
        html`<tr><td><code>${k.kid}</code></td><td data-col="Created">${s.when(Date.parse(k.created_at))}</td><td>${
          k.retired_at
            ? `signing ends ${s.when(Date.parse(k.retired_at))}; published 7 days after`
            : k.signs_from && k.signs_from !== k.created_at
              ? html`<span class="state s-confirmed">published; signs deliveries from ${s.when(Date.parse(k.signs_from))}</span>`
              : html`<span class="state s-confirmed">signs deliveries</span>`
        }</td></tr>`,
    );
    return s.view(
      c,
      'Webhooks',
      '/admin/ui/webhooks',
      html`<h1>Webhook deliveries</h1>${s.flash(c)}<div class="card">${
        rows.length
          ? html`<table class="list"><thead><tr><th>Created (${s.zone})</th><th>Event</th><th>Status</th><th>Attempts</th><th>Last answer</th><th>Target</th><th><span class="sr-only">Actions</span></th></tr></thead><tbody>${rows}</tbody></table>`
          : html`<p class="note">No deliveries yet.</p>`
      }</div>
<section class="card" aria-labelledby="h-keys"><h2 id="h-keys">Signing key</h2>
<p>Every delivery is signed (HTTP Message Signatures, RFC 9421) with the key in use; platforms check the signature against the public keys published in your profile.</p>
${keyRows.length ? html`<table class="list"><thead><tr><th>Key id</th><th>Created (${s.zone})</th><th>State</th></tr></thead><tbody>${keyRows}</tbody></table>` : html`<p class="note">This server has no signing keys.</p>`}
<form method="post" action="/admin/ui/webhooks/rotate-key">${s.csrfField(c)}<p class="note">Rotating publishes a new key in your profile at once and signs with it after an overlap (1 hour by default), so platforms have it before they meet it. The old key signs until then and stays published for 7 days after, so deliveries already on their way still verify. Rotate if you think the key leaked.</p>
<button type="submit">Rotate the signing key</button></form></section>`,
    );
  });
  app.post('/admin/ui/webhooks/:id/retry', async (c) =>
    s.back(
      c,
      '/admin/ui/webhooks',
      await s.run(c, 'delivery_retry', { delivery_id: c.req.param('id') }),
      'delivery_queued',
    ),
  );
  app.post('/admin/ui/webhooks/rotate-key', async (c) => {
    const res = await s.run(c, 'signing_key_rotate', {});
    return s.back(
      c,
      '/admin/ui/webhooks',
      res,
      'key_rotated',
      res.ok
        ? `New signing key ${(res.data.key as { kid: string }).kid} is published and signs deliveries after the overlap.`
        : undefined,
    );
  });
}
