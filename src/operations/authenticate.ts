/**
 * Who is calling, and may they call this operation. Platform authentication mechanisms plug in
 * here; until they do, privileged calls are accepted only in sandbox mode, identified by the
 * profile URI they present, and the business authenticates with its admin API key.
 */
import { apiKeyMatches, checkProfileUrl } from '../security/index.js';
import { ProtocolError, invalidRequest } from './errors.js';
import type { OperationDef } from './define.js';
import type { Caller } from './runtime.js';

export interface Credentials {
  /** An API key (REST `Authorization: Bearer`, or MCP `_meta.usp.authorization` with mechanism api_key). */
  apiKey?: string;
}

export interface AuthSettings {
  sandbox: boolean;
  adminKeyHashes: readonly string[];
}

export function authenticate(
  op: Pick<OperationDef, 'access'>,
  req: { profile?: string | null; credentials?: Credentials },
  settings: AuthSettings,
): Caller {
  const profile = req.profile ?? null;
  if (profile !== null) {
    const problem = checkProfileUrl(profile, settings.sandbox);
    if (problem) {
      throw new ProtocolError('invalid_profile_url', `The platform profile URL ${problem}.`, {
        errors: [{ field: 'profile', message: problem }],
      });
    }
  }
  const business = req.credentials?.apiKey !== undefined && apiKeyMatches(req.credentials.apiKey, settings.adminKeyHashes);
  if (req.credentials?.apiKey !== undefined && !business) {
    throw new ProtocolError('authentication_required', 'The API key presented is not valid for this business.', {
      detailCode: 'invalid_credential',
    });
  }
  if (business) return { principal: 'business', profile, business: true };

  switch (op.access) {
    case 'public':
      return { principal: profile, profile, business: false };
    case 'business_only':
      throw new ProtocolError('authentication_required', 'Only the business itself may do this; authenticate with the business API key.', {
        detailCode: 'business_credential_required',
      });
    default:
      if (profile === null) {
        throw invalidRequest('A platform profile is required on privileged operations (USP-Agent header or _meta.usp.profile).', [
          { field: 'profile', message: 'is required' },
        ]);
      }
      if (!settings.sandbox) {
        throw new ProtocolError('authentication_required', 'This operation requires platform authentication.', {
          detailCode: 'authentication_missing',
        });
      }
      return { principal: profile, profile, business: false };
  }
}
