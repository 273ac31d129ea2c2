/**
 * Client ID Metadata Documents: a client whose `client_id` is an https URL is described by the
 * JSON document at that URL, which this server fetches. The URL is the caller's choice, so the
 * fetch is the project's SSRF-safe pinned GET (every resolved address vetted before any connection
 * is opened, the connection pinned to it, no redirects, a deadline and a byte cap): loopback and
 * private addresses are refused unless development allows loopback (`--allow-loopback-profiles`).
 * Each refusal is logged with its reason.
 */
import type { Logger } from '../operations/index.js';
import {
  createProfileResolver,
  isLoopbackAddress,
  isSpecialUseAddress,
  outboundUrlProblem,
  parseJsonDocument,
  type ProfileResolver,
} from '../security/index.js';

export interface ClientMetadataFetch {
  /** Whether the library may fetch `url` at all (checked before any DNS or connection). */
  allow(url: string): boolean;
  /** The document at `url`, as the library reads it. */
  fetch(url: string): Promise<Response>;
}

/** A metadata document is small: this many bytes at most. */
const MAX_DOCUMENT_BYTES = 64 * 1024;

export function clientMetadataFetch(o: {
  log: Logger;
  allowLoopback: boolean;
  resolver?: ProfileResolver;
}): ClientMetadataFetch {
  const resolver =
    o.resolver ??
    createProfileResolver({ allowLoopback: o.allowLoopback, parse: parseJsonDocument, maxBytes: MAX_DOCUMENT_BYTES });
  const refused = (url: string, reason: string) =>
    o.log.warn('client_id metadata document refused', { client_id: url.slice(0, 300), reason });
  return {
    allow(url) {
      const problem = outboundUrlProblem(url, o.allowLoopback, { refuseCredentials: true });
      if (problem) {
        refused(url, problem);
        return false;
      }
      // An address literal is judged at once; a name is judged on every address it resolves to, in the fetch.
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      if (/^[\d.]+$|:/.test(host) && isSpecialUseAddress(host) && !(o.allowLoopback && isLoopbackAddress(host))) {
        refused(url, `the address ${host} is loopback, private or otherwise not public`);
        return false;
      }
      return true;
    },
    async fetch(url) {
      try {
        const doc = await resolver.resolve(url);
        return new Response(JSON.stringify(doc.raw), { status: 200, headers: { 'content-type': 'application/json' } });
      } catch (e) {
        refused(url, `${(e as { code?: string }).code ?? 'fetch_failed'}: ${(e as Error).message}`);
        throw e;
      }
    },
  };
}
