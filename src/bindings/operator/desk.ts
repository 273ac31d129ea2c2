/** What the operator door asks of the deployment (the desk, src/server/operator-desk.ts), and how it says no. */

/** A business as the operator sees it (directory facts, and the health of a loaded one). */
export type OperatorBusiness = Record<string, unknown> & { id: string };

/** What the operator may do with the deployment's businesses; refusals are OperatorRefusal. */
export interface OperatorDesk {
  list(): Promise<OperatorBusiness[]>;
  get(id: string): Promise<OperatorBusiness | undefined>;
  /** A new business; with paymentAccount, its connected account; with ownerEmail, its owner is invited as `invite` does. */
  create(
    business: unknown,
    hosts: unknown,
    extra?: { paymentAccount?: unknown; ownerEmail?: unknown },
  ): Promise<OperatorBusiness>;
  setHosts(id: string, hosts: unknown): Promise<OperatorBusiness>;
  /** Its Stripe connected account (`acct_...`), or null to forget it. */
  setPaymentAccount(id: string, account: unknown): Promise<OperatorBusiness>;
  /** Mail the business's owner a one-time dashboard setup link at the business's origin, through its mail. */
  invite(id: string, email: unknown): Promise<OperatorBusiness>;
  /** A custom domain added as pending: the TXT record that verifies it. */
  addDomain(id: string, domain: unknown): Promise<OperatorBusiness>;
  /** The pending domain checked by DNS; once proven, it reaches the business. */
  verifyDomain(id: string, domain: string): Promise<OperatorBusiness>;
  /** The business's data as a SQLite database (what `host remove --export` writes). */
  exportBusiness(id: string): Promise<Uint8Array>;
  /** The business deleted and its names freed: refused until its export was taken, unless confirm is true. */
  remove(id: string, confirm: unknown): Promise<Record<string, unknown>>;
  suspend(id: string, reason: unknown): Promise<OperatorBusiness>;
  resume(id: string): Promise<OperatorBusiness>;
}

export const REFUSALS = {
  invalid: { status: 400, title: 'Bad request' },
  invalid_file: { status: 422, title: 'Invalid business file' },
  not_found: { status: 404, title: 'Not found' },
  conflict: { status: 409, title: 'Conflict' },
  unverified: { status: 422, title: 'Not verified' },
} as const;

/** The desk's (or the door's) no: a kind that picks the status, and a sentence for the operator. */
export class OperatorRefusal extends Error {
  constructor(
    readonly kind: keyof typeof REFUSALS,
    detail: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
  }
}
