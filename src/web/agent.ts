/**
 * The USP-Agent request header (spec 9.1), read by every JSON door the same way: REST on each call,
 * MCP when a listener presents no profile in its metadata.
 */
import { parseDictionary } from 'structured-headers';
import { ProtocolError, memoByString } from '../operations/index.js';

/** Parsed USP-Agent values by header string, 256 kept (a refused one never is): a platform sends the same one on every call. */
const agents = memoByString(256, parseAgentOnce);

/** USP-Agent is an RFC 8941 dictionary: `profile="https://..."`. */
export function parseAgent(header: string | undefined): string | null {
  if (header === undefined) return null;
  return agents(header);
}

function parseAgentOnce(header: string): string | null {
  if (header.trim() === '') return null;
  let dict;
  try {
    dict = parseDictionary(header);
  } catch {
    throw new ProtocolError(
      'invalid_request',
      'USP-Agent must be a structured-field dictionary, e.g. profile="https://platform.example/profile.json".',
      {
        errors: [{ field: 'USP-Agent', message: 'not an RFC 8941 dictionary' }],
      },
    );
  }
  const entry = dict.get('profile');
  if (entry === undefined) return null;
  const value = entry[0];
  if (typeof value !== 'string') {
    throw new ProtocolError('invalid_request', 'The USP-Agent profile member must be a quoted string.', {
      errors: [{ field: 'USP-Agent', message: 'profile is not a string' }],
    });
  }
  return value;
}
