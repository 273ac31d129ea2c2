/**
 * Buyer accounts as the pages see them: sign-up with a one-time code, sign-in, the linked
 * assistants and their removal. The only code of the pages that reaches the store, through its
 * `accounts` and `oauth` repositories. Nothing here ever tells a caller whether an email has an
 * account: a sign-up for a taken email looks the same (its code simply never arrives), and a
 * sign-in for an unknown email costs the same scrypt as a wrong password.
 */
import { createHash, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../operations/index.js';
import {
  emailRef,
  loginBackoff,
  tokenBuckets,
  windowCounter,
  type AccountEvent,
  type LockoutLimit,
} from '../security/index.js';
import type { BuyerAccount, Store } from '../store/index.js';
import { hashPassword, verifyPassword } from './passwords.js';

export const SIGNUP_TTL_MS = 15 * 60_000;
const SIGNUP_MAX_TRIES = 5;
/** Sign-ups per email (each mails a code to whoever owns it) and per address, per hour. */
export const SIGNUPS_PER_EMAIL_HOUR = 3;
export const SIGNUPS_PER_ADDRESS_HOUR = 10;
/** Code checks per address per 15 minutes, across sign-ups (a fresh sign-up per guess gains nothing). */
export const VERIFY_PER_ADDRESS = 20;
export const ACCOUNT_SESSION_MS = 8 * 3600_000;
export const SESSION_MODEL = 'AccountSession';

export const normalizeEmail = (e: string) => e.trim().toLowerCase();
export const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,63}$/;

const sha = (s: string) => createHash('sha256').update(s).digest('base64url');

export interface LinkedGrant {
  grantId: string;
  clientId: string;
  scopes: string[];
  createdMs: number;
}

export interface AccountsOptions {
  store: Store;
  log: Logger;
  /** How a one-time code reaches the buyer. Default: the log (no mailer is wired in). */
  deliverCode?: (email: string, code: string) => void;
  /** The clock for codes, sessions and delays. Default Date.now. */
  now?: () => number;
  /** Sign-in attempts per minute per client address (each costs a scrypt). Default 20. */
  perAddressPerMinute?: number;
  /** Sign-ups per hour per client address. Default SIGNUPS_PER_ADDRESS_HOUR. */
  signupsPerAddressHour?: number;
  /** For the operator's counters. */
  onEvent?: (e: AccountEvent) => void;
}

/** An attempt refused before any password or code was checked: wait this many seconds. */
export interface Slowed {
  waitS: number;
}

export class Accounts {
  private readonly store: Store;
  private readonly log: Logger;
  private readonly deliverCode: (email: string, code: string) => void;
  private readonly now: () => number;
  private readonly onEvent: (e: AccountEvent) => void;
  /** Failures per address (any account), then per account as seen from one address: never per account alone. */
  private readonly addressBackoff = loginBackoff({ free: 10 });
  private readonly accountBackoff = loginBackoff({ free: 3 });
  private readonly flood;
  private readonly signupsPerEmail = windowCounter(SIGNUPS_PER_EMAIL_HOUR, 3600_000);
  private readonly signupsPerAddress;
  private readonly verifiesPerAddress = windowCounter(VERIFY_PER_ADDRESS, 15 * 60_000);

  constructor(o: AccountsOptions) {
    this.store = o.store;
    this.log = o.log;
    this.deliverCode =
      o.deliverCode ??
      ((email, code) => o.log.info('sign-up code (no mailer configured: delivered to the log)', { email, code }));
    this.now = o.now ?? Date.now;
    this.onEvent = o.onEvent ?? (() => {});
    this.flood = tokenBuckets({ login: o.perAddressPerMinute ?? 20 });
    this.signupsPerAddress = windowCounter(o.signupsPerAddressHour ?? SIGNUPS_PER_ADDRESS_HOUR, 3600_000);
  }

  private slowed(limit: LockoutLimit, waitMs: number, ref: Record<string, string>, address: string): Slowed {
    const waitS = Math.max(1, Math.ceil(waitMs / 1000));
    // The address is kept on this line only: it is what the operator blocks.
    this.log.warn('account attempt refused: too many', { door: 'oauth', limit, wait_s: waitS, address, ...ref });
    this.onEvent({ kind: 'locked_out', door: 'oauth', limit });
    return { waitS };
  }

  /** Who the log line is about: the account id when the email has one, else the email's reference. */
  private async refOf(email: string): Promise<Record<string, string>> {
    const existing = await this.store.read((tx) => tx.accounts.byEmail(email));
    return existing ? { account: existing.id } : { email_ref: emailRef(email) };
  }

  /** Start a sign-up. A sign-up id, the same whether the email is new or taken (only a new one gets a code), or Slowed. */
  async startSignup(
    input: { name: string; email: string; password: string },
    address: string,
  ): Promise<{ signup: string } | Slowed> {
    const email = normalizeEmail(input.email);
    const now = this.now();
    const byAddress = this.signupsPerAddress.take(address, now);
    if (byAddress > 0) return this.slowed('signup_address', byAddress, await this.refOf(email), address);
    const byEmail = this.signupsPerEmail.take(email, now);
    if (byEmail > 0) return this.slowed('signup_email', byEmail, await this.refOf(email), address);
    const signup = randomBytes(18).toString('base64url');
    const passwordHash = await hashPassword(input.password);
    const existing = await this.store.read((tx) => tx.accounts.byEmail(email));
    this.onEvent({ kind: 'sign_up', stage: 'started' });
    if (existing) {
      this.log.info('sign-up for an email that has an account: no code sent', { account: existing.id });
      return { signup };
    }
    this.log.info('sign-up started: code sent', { email_ref: emailRef(email) });
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await this.store.transaction((tx) =>
      tx.oauth.upsert({
        model: 'Signup',
        id: sha(signup),
        payload: {
          email,
          name: input.name.trim(),
          password_hash: passwordHash,
          code: sha(`${signup}|${code}`),
          tries: 0,
        },
        grantId: null,
        uid: null,
        userCode: null,
        accountId: null,
        expiresMs: now + SIGNUP_TTL_MS,
      }),
    );
    this.deliverCode(email, code);
    return { signup };
  }

  /** Finish a sign-up with its code: the new account, null (wrong, used up or expired code), or Slowed. */
  async finishSignup(
    signup: string,
    code: string,
    address: string,
  ): Promise<{ account: BuyerAccount | null } | Slowed> {
    const id = sha(signup);
    const now = this.now();
    const wait = this.verifiesPerAddress.take(address, now);
    if (wait > 0) return this.slowed('verify_address', wait, {}, address);
    const account = await this.store.transaction(async (tx) => {
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
      const account: BuyerAccount = {
        id: `acc_${randomUUID().replace(/-/g, '')}`,
        email: p.email,
        password_hash: p.password_hash,
        name: p.name,
        phone: null,
        created_ms: now,
      };
      // Two sign-ups raced for one email: the second finds it taken and gets nothing.
      return (await tx.accounts.create(account)) ? account : null;
    });
    if (account) this.log.info('sign-up completed', { account: account.id });
    else this.log.info('sign-up code refused (wrong, used up or expired)', {});
    this.onEvent({ kind: 'sign_up', stage: account ? 'completed' : 'code_rejected' });
    return { account };
  }

  /**
   * The account when email and password match (null otherwise, in the same time either way), or
   * Slowed when this address, or this address at this account, has failed too often of late.
   */
  async signIn(email: string, password: string, address: string): Promise<{ account: BuyerAccount | null } | Slowed> {
    const e = normalizeEmail(email);
    const now = this.now();
    const addrKey = `addr:${address}`;
    const pairKey = `acct:${e}|${address}`;
    const flood = this.flood.take([address], 'login', 1, now) * 1000;
    const backoff = Math.max(this.addressBackoff.wait([addrKey], now), this.accountBackoff.wait([pairKey], now));
    if (flood > 0 || backoff > 0) {
      const limit = flood > 0 || this.addressBackoff.wait([addrKey], now) > 0 ? 'address' : 'account';
      return this.slowed(limit, Math.max(flood, backoff), await this.refOf(e), address);
    }
    const account = await this.store.read((tx) => tx.accounts.byEmail(e));
    const ok = await verifyPassword(password, account?.password_hash ?? null);
    if (ok && account) {
      this.accountBackoff.clear([pairKey]);
      return { account };
    }
    const waits = Math.max(this.addressBackoff.fail([addrKey], now), this.accountBackoff.fail([pairKey], now));
    this.log.warn('sign-in failed', {
      door: 'oauth',
      ...(account ? { account: account.id } : { email_ref: emailRef(e) }),
      next_wait_s: Math.ceil(waits / 1000),
    });
    this.onEvent({ kind: 'sign_in_failed', door: 'oauth' });
    return { account: null };
  }

  /** A new server-side session for the account page: the cookie's value (only its hash is kept). */
  async openSession(accountId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.store.transaction((tx) =>
      tx.oauth.upsert({
        model: SESSION_MODEL,
        id: sha(token),
        payload: {},
        grantId: null,
        uid: null,
        userCode: null,
        accountId,
        expiresMs: this.now() + ACCOUNT_SESSION_MS,
      }),
    );
    return token;
  }

  /** The account a session cookie's value is signed in as, or null (unknown, expired or signed out). */
  async session(token: string | undefined): Promise<string | null> {
    if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const rec = await this.store.read((tx) => tx.oauth.find(SESSION_MODEL, sha(token), this.now()));
    return rec?.accountId ?? null;
  }

  /**
   * Sign out: this session ends at once on the server, and so do the authorization server's
   * sessions of the account (the next assistant asks the buyer to sign in again; the library's
   * records keep wall-clock expiries, hence Date.now there).
   */
  async closeSession(token: string | undefined): Promise<void> {
    if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return;
    const accountId = await this.session(token);
    await this.store.transaction(async (tx) => {
      await tx.oauth.destroy(SESSION_MODEL, sha(token));
      if (accountId)
        for (const s of await tx.oauth.byAccount('Session', accountId, Date.now()))
          await tx.oauth.destroy('Session', s.id);
    });
    if (accountId) this.log.info('signed out', { account: accountId });
  }

  byId(id: string): Promise<BuyerAccount | null> {
    return this.store.read((tx) => tx.accounts.byId(id));
  }

  /** The assistants (OAuth grants) linked to an account, newest first. */
  async linked(accountId: string): Promise<LinkedGrant[]> {
    const grants = await this.store.read((tx) => tx.oauth.byAccount('Grant', accountId, Date.now()));
    return grants.map((g) => {
      const p = g.payload as {
        clientId?: string;
        iat?: number;
        resources?: Record<string, string>;
        openid?: { scope?: string };
      };
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
