export function defineOperation(def) {
    return def;
}
export function ok(data, status = 200) {
    return { data, status };
}
/** A business outcome: HTTP 200 / MCP result with the message, and whatever data still applies. */
export function outcome(message, data = {}) {
    return { data, messages: [message], status: 200 };
}
//# sourceMappingURL=define.js.map