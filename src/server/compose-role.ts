/**
 * A role other than the business's (the discovery registry), composed over the core: its frozen
 * policy, a scope with no business, its profile, and its doors (MCP, the role's own, REST last).
 * Returned as a frozen record; it starts no worker of its own.
 */
import { singleScope, type CallScope } from '../operations/index.js';
import { popAlgorithms } from '../security/index.js';
import { freezePolicy } from './security-wiring.js';
import { mcpDoor, restDoor } from './doors.js';
import { adminEnvOf, callDoors, type ComposeOptions, type ComposedRole, type Core } from './compose-core.js';
import type { ServerRole } from './options.js';

export function composeRole(core: Core, opts: ComposeOptions, role: ServerRole): ComposedRole {
  const { pipeline } = core;
  const authPolicy = freezePolicy(core.basePolicy);
  // A role with no business has a scope without one: its operations get no `biz`.
  const scope: CallScope = Object.freeze({
    store: core.store,
    authPolicy,
    env: role.env ?? adminEnvOf(core, opts, authPolicy),
    webhookResourceUri: core.webhookResourceUri,
    // No business, no mail: only the outbox's events, announced once committed.
    channels: core.channels(),
    origin: core.origin,
  });
  const scopeOf = singleScope(scope);
  const popAlgs = popAlgorithms(authPolicy.allowEs256);
  const profile = (s: CallScope): Record<string, unknown> =>
    role.profile({ baseUrl: core.baseUrlOf(s), mechanisms: authPolicy.accepted, popAlgorithms: popAlgs });
  const { rest, mcpHttp } = callDoors(core, { ...opts, role }, { scopeOf, profile });
  return Object.freeze({
    authPolicy,
    scope,
    doors: Object.freeze([
      mcpDoor(mcpHttp.app),
      ...(role.doors?.({ pipeline, scopeOf, clientAddress: core.limitKey }) ?? []),
      restDoor(rest),
    ]),
    profile: () => profile(scope),
    configuredPublicUrl: core.origin.configured ? core.publicUrl() : undefined,
    onListening: () => {},
    stopWorkers: async () => {},
    closeDoors: () => mcpHttp.close(),
  });
}
