export const MCP_ERROR_CODES = {
    invalid_request: -32600,
    invalid_profile_url: -32602,
    profile_unreachable: -32003,
    profile_malformed: -32004,
    profile_not_trusted: -32005,
    authentication_required: -32006,
    rate_limited: -32007,
    version_unsupported: -32008,
    service_unavailable: -32009,
    pop_proof_required: -32001,
    revision_mismatch: -32002,
    server_error: -32603,
    idempotency_conflict: -32600,
    booking_state_conflict: -32600,
    range_too_wide: -32600,
    signature_invalid: -32006,
    digest_mismatch: -32600,
    payload_too_large: -32600,
    not_found: -32602,
    method_not_allowed: -32601,
    unsupported_media_type: -32600,
    unknown_tool: -32602,
    limit_exceeded: -32600,
    algorithm_unsupported: -32600,
};
/** The USP code named in `message` when ours has no JSON-RPC number of its own. */
const WIRE_NAME = {
    idempotency_conflict: 'invalid_request',
    booking_state_conflict: 'invalid_request',
    range_too_wide: 'invalid_request',
    digest_mismatch: 'invalid_request',
    payload_too_large: 'invalid_request',
    unsupported_media_type: 'invalid_request',
    limit_exceeded: 'invalid_request',
    algorithm_unsupported: 'invalid_request',
    signature_invalid: 'authentication_required',
};
export function toJsonRpcError(err, correlationId) {
    const data = { code: err.detailCode ?? err.code, content: err.message };
    if (err.errors && err.errors.length > 0)
        data.errors = err.errors;
    if (err.retryAfter !== undefined)
        data.retry_after = err.retryAfter;
    if (err.extra)
        for (const [k, v] of Object.entries(err.extra))
            if (!(k in data))
                data[k] = v;
    if (correlationId)
        data.correlation_id = correlationId;
    return { code: MCP_ERROR_CODES[err.code], message: WIRE_NAME[err.code] ?? err.code, data };
}
//# sourceMappingURL=errors.js.map