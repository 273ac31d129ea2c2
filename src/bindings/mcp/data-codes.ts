/**
 * The `data.code` values the MCP door may send (and REST's problem `code`) that the pinned
 * OpenRPC error enum does not list. Each finer code rides on a JSON-RPC number of the family the
 * enum gives (`-32600` for invalid_request, `-32602` for a not-found, ...), so a platform that knows
 * only the enum still branches on the number. Documented in docs/CONFORMANCE.md and DECISIONS; a
 * test keeps this list, the codes the source can emit and those documents in step.
 */
export const DATA_CODE_EXTENSIONS = {
  // In the newer text's enum already.
  idempotency_conflict: 'newer_enum',
  range_too_wide: 'newer_enum',
  hold_limit_exceeded: 'newer_enum',
  booking_not_found: 'newer_enum',
  entry_not_found: 'newer_enum',
  // The newer text's 9.4.3 row for an unknown service in a path (4 Oct); no stored OpenRPC enum has it yet.
  service_not_found: 'ours',
  // The newer text's confirm-payment conflicts (its OpenAPI after 4 Oct; no stored OpenRPC enum has them yet).
  payment_unverifiable: 'ours',
  confirmation_failed: 'ours',
  // The pinned text's refusal of a forbidden booking move, kept for a platform that negotiated an
  // older version (the newer text's `invalid_transition` is a business outcome, D2).
  booking_state_conflict: 'ours',
  // Other lifecycles' refused moves, and what a buyer page or calendar file cannot show yet.
  entry_state_conflict: 'ours',
  dispute_state_conflict: 'ours',
  subscription_canceled: 'ours',
  not_confirmed: 'ours',
  // Not found, naming what was not found.
  not_found: 'ours',
  subscription_not_found: 'ours',
  registration_not_found: 'ours',
  checkout_not_found: 'ours',
  resource_not_found: 'ours',
  session_not_found: 'ours',
  // Refusals of the request's form or size.
  payload_too_large: 'ours',
  unsupported_media_type: 'ours',
  method_not_allowed: 'ours',
  malformed_body: 'ours',
  limit_exceeded: 'ours',
  too_many_sessions: 'ours',
  too_many_sessions_from_address: 'ours',
  // The JSON-RPC layer's own errors, named after their JSON-RPC code.
  parse_error: 'ours',
  method_not_found: 'ours',
  invalid_params: 'ours',
  // Authentication and authorization beyond the enum's.
  authentication_missing: 'ours',
  credential_missing: 'ours',
  credential_invalid: 'ours',
  invalid_credential: 'ours',
  credential_scope_mismatch: 'ours',
  conflicting_credentials: 'ours',
  mechanism_not_accepted: 'ours',
  profile_required: 'ours',
  invalid_token: 'ours',
  insufficient_scope: 'ours',
  profile_binding_mismatch: 'ours',
  account_not_linked: 'ours',
  business_credential_required: 'ours',
  business_control_not_proven: 'ours',
  https_required: 'ours',
  host_not_allowed: 'ours',
  origin_not_allowed: 'ours',
  already_revoked: 'ours',
  // The registry role's.
  catalog_invalid: 'ours',
  deployment_mode_mismatch: 'ours',
  endpoint_profile_mismatch: 'ours',
  location_required: 'ours',
  profile_already_registered: 'ours',
  profile_invalid: 'ours',
} as const satisfies Record<string, 'newer_enum' | 'ours'>;
