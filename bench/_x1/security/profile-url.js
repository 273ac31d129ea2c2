/** Platform profile URIs (spec 8.2.3): absolute https URLs; plain http only for loopback in development. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
export function checkProfileUrl(raw, allowLoopbackHttp) {
    let url;
    try {
        url = new URL(raw);
    }
    catch {
        return 'is not an absolute URL';
    }
    if (url.protocol === 'https:')
        return null;
    if (url.protocol === 'http:' && allowLoopbackHttp && LOOPBACK.has(url.hostname))
        return null;
    return 'must use https';
}
//# sourceMappingURL=profile-url.js.map