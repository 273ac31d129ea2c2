import { operationByName } from '../../operations/index.js';
import { REST_ERRORS } from './problems.js';
const esc = (s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
function page(title, body, status = 200) {
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}.due{font-size:1.6rem;font-weight:600}button{font:inherit;padding:.5rem 1.2rem;margin-right:.5rem}.note{color:#666;font-size:.9rem}</style></head><body>${body}</body></html>`;
    return new Response(html, { status, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' } });
}
function render(v) {
    const head = `<h1>${esc(v.service_name)}</h1><p>${esc(v.start)} (${esc(v.zone)})</p>`;
    switch (v.state) {
        case 'due':
            return page('Checkout', `${head}<p class="due">${esc(v.amount_due ?? '')} due</p><p>Pay before ${esc(v.expires_at ?? '')}, or the booking is released.</p>` +
                (v.sandbox
                    ? `<form method="post"><button name="choice" value="pay">Pay (sandbox)</button><button name="choice" value="cancel">Cancel</button></form><p class="note">Sandbox business: no money moves.</p>`
                    : `<p class="note">This business takes payment through its payment provider.</p>`));
        case 'paid':
            return page('Paid', `${head}<p class="due">Paid. Your booking is confirmed or awaiting the business.</p>`);
        case 'expired':
            // Spec 8.5.5: after expiry an explicit page, never a broken link.
            return page('Payment link expired', `${head}<p class="due">This payment link has expired.</p><p>The booking was released. Ask your assistant to book again.</p>`, 410);
        default:
            return page('Nothing to pay', `${head}<p>There is nothing to pay for this booking.</p>`);
    }
}
export function mountCheckoutPages(app, pipeline) {
    const html = (c) => (c.req.header('accept') ?? '').includes('text/html');
    app.get('/checkout/:booking_id', async (c, next) => {
        if (!html(c))
            return next();
        const res = await pipeline.execute(operationByName('view_checkout'), { input: { booking_id: c.req.param('booking_id') } });
        if (!res.ok)
            return page('Not found', '<h1>There is no checkout for this link.</h1>', REST_ERRORS[res.error.code].status);
        return render(res.data.checkout);
    });
    app.post('/checkout/:booking_id', async (c, next) => {
        const type = c.req.header('content-type') ?? '';
        if (!type.startsWith('application/x-www-form-urlencoded'))
            return next();
        const form = new URLSearchParams(await c.req.text());
        const choice = form.get('choice') === 'cancel' ? 'cancel' : 'pay';
        const res = await pipeline.execute(operationByName('complete_checkout'), { input: { booking_id: c.req.param('booking_id'), choice } });
        if (!res.ok)
            return page('Payment not possible', `<h1>${esc(res.error.message)}</h1>`, REST_ERRORS[res.error.code].status);
        const v = res.data.checkout;
        // Paid, failed, or abandoned: back to the platform when it asked (spec 8.5.5).
        if (v.return_url)
            return c.redirect(v.return_url, 303);
        return render(v);
    });
}
//# sourceMappingURL=checkout-page.js.map