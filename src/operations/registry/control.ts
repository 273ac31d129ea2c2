/**
 * Who may register, change or remove a business in the registry: whoever proves control of its
 * profile. The proof is an RFC 9421 signature on the request, made with a key the business's own
 * profile publishes, with that profile presented as the caller's profile (USP-Agent or
 * _meta.usp.profile): the security module resolves the key from the presented profile, so a valid
 * signature under that profile is made by whoever controls the profile document. The registry's
 * own operators (its admin API key) may act on any registration.
 */
import { ProtocolError } from '../core/errors.js';
import type { Caller } from '../core/context.js';
import { normalizeUrl } from './indexing.js';

function provesControl(caller: Caller, profileUrl: string): boolean {
  if (caller.business) return true;
  if (!caller.authenticated || !caller.principal?.startsWith('sig:') || !caller.profile) return false;
  return normalizeUrl(caller.profile) === normalizeUrl(profileUrl);
}

export function requireControl(caller: Caller, profileUrl: string): void {
  if (provesControl(caller, profileUrl)) return;
  throw new ProtocolError(
    'authentication_required',
    'Prove that you control this business: present its profile_url as your profile (USP-Agent profile=...) and sign the request (RFC 9421) with a key that profile publishes in keys[].',
    { detailCode: 'business_control_not_proven', extra: { accepted_mechanisms: ['http_message_signature'] } },
  );
}
