/**
 * Buyer accounts as the pages see them: sign-up with a one-time code, sign-in, the linked
 * assistants and their removal. The only code of the pages that reaches the store, through its
 * `accounts` and `oauth` repositories. Nothing here ever tells a caller whether an email has an
 * account: a sign-up for a taken email looks the same (its code simply never arrives), and a
 * sign-in for an unknown email costs the same scrypt as a wrong password.
 */
import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../operations/index.js';
import type { BuyerAccount, Store } from '../store/index.js';
import { hashPassword, verifyPassword } from './passwords.js';

export const SIGNUP_TTL_MS = 15 * 60_000;
const SIGNUP_MAX_TRIES = 5;

export const normalizeEmail = (e: string) => e.trim().toLowerCase();
export const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,63}$/;

const sha = (s: string) => createHash('sha256').update(s).digest('base64url');

export interface LinkedGrant {
  grantId: string;
  clientId: string;
  scopes: string[];
  createdMs: number;
}

export class Accounts {
  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    /** How a one-time code reaches the buyer. Default: the log (no mailer is wired in). */
    private readonly deliverCode: (email: string, code: string) => void = (email, code) =>
      log.info('sign-up code (no mailer configured: delivered to the log)', { email, code }),
  ) {}

  /** Start a sign-up. Always returns a sign-up id; only a new email gets a code. */
  async startSignup(input: { name: string; email: string; password: string }): Promise<string> {
    const email = normalizeEmail(input.email);
    const signup = randomBytes(18).toString('base64url');
    const passwordHash = await hashPassword(input.password);
    const existing = await this.store.read((tx) => tx.accounts.byEmail(email));
    if (existing) {
      this.log.info('sign-up for an email that has an account: no code sent', { account: existing.id });
      return signup;
    }
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const now = Date.now();
    await this.store.transaction((tx) =>
      tx.oauth.upsert({
        model: 'Signup',
        id: sha(signup),
        payload: { email, name: input.name.trim(), password_hash: passwordHash, code: sha(`${signup}|${code}`), tries: 0 },
        grantId: null,
        uid: null,
        userCode: null,
        accountId: null,
        expiresMs: now + SIGNUP_TTL_MS,
      }),
    );
    this.deliverCode(email, code);
    return signup;
  }

  /** Finish a sign-up with its code: the new account, or null (wrong, used up or expired code). */
  async finishSignup(signup: string, code: string): Promise<BuyerAccount | null> {
    const id = sha(signup);
    const now = Date.now();
    return this.store.transaction(async (tx) => {
      const rec = await tx.oauth.find('Signup', id, now);
      if (!rec) return null;
      const p = rec.payload as { email: string; name: string; password_hash: string; code: string; tries: number };
      const good = timingSafeEqual(Buffer.from(sha(`${signup}|${code}`)), Buffer.from(p.code));
      if (!good) {
        // Guessing is bounded: a few tries per code, then the sign-up is gone.
        if (p.tries + 1 >= SIGNUP_MAX_TRIES) await tx.oauth.destroy('Signup', id);
        else await tx.oauth.upsert({ ...rec, payload: { ...p, tries: p.tries + 1 } });
        return null;
      }
      await tx.oauth.destroy('Signup', id);
      const account: BuyerAccount = { id: `acc_${randomUUID().replace(/-/g, '')}`, email: p.email, password_hash: p.password_hash, name: p.name, phone: null, created_ms: now };
      // Two sign-ups raced for one email: the second finds it taken and gets nothing.
      return (await tx.accounts.create(account)) ? account : null;
    });
  }

  /** The account when email and password match; null otherwise, in the same time either way. */
  async signIn(email: string, password: string): Promise<BuyerAccount | null> {
    const account = await this.store.read((tx) => tx.accounts.byEmail(normalizeEmail(email)));
    const ok = await verifyPassword(password, account?.password_hash ?? null);
    return ok && account ? account : null;
  }

  byId(id: string): Promise<BuyerAccount | null> {
    return this.store.read((tx) => tx.accounts.byId(id));
  }

  /** The assistants (OAuth grants) linked to an account, newest first. */
  async linked(accountId: string): Promise<LinkedGrant[]> {
    const grants = await this.store.read((tx) => tx.oauth.byAccount('Grant', accountId, Date.now()));
    return grants.map((g) => {
      const p = g.payload as { clientId?: string; iat?: number; resources?: Record<string, string>; openid?: { scope?: string } };
      const scopes = new Set<string>();
      for (const s of Object.values(p.resources ?? {})) for (const x of String(s).split(' ')) if (x) scopes.add(x);
      return { grantId: g.id, clientId: String(p.clientId ?? ''), scopes: [...scopes], createdMs: (p.iat ?? 0) * 1000 };
    });
  }

  /** Remove an assistant: its grant and every code and token issued under it (spec 10.2.4, RFC 7009). */
  async revoke(accountId: string, grantId: string): Promise<boolean> {
    return this.store.transaction(async (tx) => {
      const g = await tx.oauth.find('Grant', grantId, Date.now());
      if (!g || g.accountId !== accountId) return false;
      await tx.oauth.revokeByGrantId(grantId);
      return true;
    });
  }
}
