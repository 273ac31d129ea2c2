export function restoreUspCodes(message) {
    const m = message;
    if (m && m.error && m.error.message === 'revision_mismatch' && m.error.code !== -32002)
        m.error.code = -32002;
    return message;
}
/** Wrap a transport's send so that every outgoing error keeps its USP code. */
export function guardSend(transport) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(restoreUspCodes(message), options);
    return transport;
}
/** Same repair for a whole JSON response body (the per-request 2026-era handler). */
export async function restoreInResponse(res) {
    const type = res.headers.get('content-type') ?? '';
    if (!type.includes('application/json'))
        return res;
    const text = await res.text();
    if (!text.includes('revision_mismatch'))
        return new Response(text, { status: res.status, headers: res.headers });
    let body;
    try {
        body = JSON.parse(text);
    }
    catch {
        return new Response(text, { status: res.status, headers: res.headers });
    }
    const fixed = Array.isArray(body) ? body.map(restoreUspCodes) : restoreUspCodes(body);
    return new Response(JSON.stringify(fixed), { status: res.status, headers: res.headers });
}
//# sourceMappingURL=wire-fix.js.map