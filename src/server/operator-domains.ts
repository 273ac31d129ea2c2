/**
 * Custom domains for a hosted business (the operator's `addDomain` and `verifyDomain`): a domain is
 * added as a pending claim with a random token, reaching nothing; it is verified by a DNS TXT record
 * at `_usp-verify.<domain>` holding the token, read through an injectable resolver (node:dns by
 * default), and only then becomes one of the business's host names. No request goes to the domain
 * itself (it could name any address: an internal one included).
 */
import { randomBytes } from 'node:crypto';
import { resolveTxt } from 'node:dns/promises';
import { OperatorRefusal } from '../bindings/operator/index.js';
import type { DeploymentDirectory, DomainClaim } from '../store/index.js';

/** The TXT records at a name, each as its character strings (node:dns/promises `resolveTxt`'s shape). */
export type TxtResolver = (name: string) => Promise<string[][]>;

export const VERIFY_LABEL = '_usp-verify';
export const defaultTxtResolver: TxtResolver = (name) => resolveTxt(name);

/** A pending domain as the operator sees it: the record to publish. */
export const pendingDomain = (c: DomainClaim) => ({
  domain: c.name,
  status: 'pending',
  txt_name: `${VERIFY_LABEL}.${c.name}`,
  txt_value: c.token,
});

/** The domain claimed for business `id` (or its claim already there), pending until verified. */
export async function claimDomain(
  directory: DeploymentDirectory,
  id: string,
  name: string,
  now: number,
): Promise<DomainClaim> {
  return directory.claimDomain(id, name, `usp-verify=${randomBytes(18).toString('base64url')}`, now);
}

/** Whether `_usp-verify.<domain>` holds the claim's token now; a name with no such record is false, a DNS failure says so. */
export async function txtProves(resolve: TxtResolver, claim: DomainClaim): Promise<boolean> {
  let records: string[][];
  try {
    records = await resolve(`${VERIFY_LABEL}.${claim.name}`);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return false;
    throw new OperatorRefusal(
      'unverified',
      `the DNS lookup of ${VERIFY_LABEL}.${claim.name} failed (${code ?? 'no answer'}); try again later.`,
    );
  }
  return records.some((chunks) => chunks.join('') === claim.token);
}

/** Business `id`'s pending domain confirmed once its TXT record holds the token (its name); refused otherwise. */
export async function verifyClaim(
  directory: DeploymentDirectory,
  resolve: TxtResolver,
  id: string,
  domain: string,
): Promise<string> {
  const name = domain.trim().toLowerCase().replace(/\.$/, '');
  const claim = (await directory.domainClaimsOf(id)).find((c) => c.name === name);
  if (!claim)
    throw new OperatorRefusal('not_found', `${id} has no pending domain ${JSON.stringify(name)}; add it first.`);
  if (!(await txtProves(resolve, claim)))
    throw new OperatorRefusal(
      'unverified',
      `no TXT record ${VERIFY_LABEL}.${name} holds ${claim.token} yet (DNS changes can take a while to be seen).`,
    );
  await directory.confirmDomain(id, name);
  return name;
}
