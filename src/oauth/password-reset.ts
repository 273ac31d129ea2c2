/**
 * Password reset for buyer accounts. Anyone may ask for a reset link for an email; the answer is the
 * same whether the email has an account or not, and is given before the store is even asked (the
 * lookup and the mail happen after the answer), so neither its words nor its timing tell. A known
 * account gets a mail with a single-use link that expires after RESET_TTL_MS; the store keeps only
 * the SHA-256 of the link's token. Setting a new password through the link ends every session of
 * the account (its account page sessions and the authorization server's), every linked assistant's
 * grant with its access and refresh tokens, and every reset link it still has.
 *
 * Limits: each address may ask RESETS_PER_ADDRESS_HOUR times an hour (refused beyond, with a wait).
 * Each email gets at most one mail per RESET_COOLDOWN_MS: a request inside the cooldown sends no new
 * mail and answers the same page. A stranger asking for a victim's email therefore only ever puts a
 * valid link into the victim's own mailbox, and cannot use up anything the victim needs.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from '../operations/index.js';
import { emailRef, windowCounter, type AccountEvent, type PasswordResetStage } from '../security/index.js';
import type { Store } from '../store/index.js';
import { SESSION_MODEL, normalizeEmail, type Slowed } from './accounts.js';
import { hashPassword } from './passwords.js';

export const RESET_TTL_MS = 30 * 60_000;
export const RESET_COOLDOWN_MS = 5 * 60_000;
export const RESETS_PER_ADDRESS_HOUR = 10;
/** Attempts to set a password through a link, per address per 15 minutes (each costs a scrypt). */
export const RESET_COMPLETIONS_PER_ADDRESS = 20;
const RESET_MODEL = 'PasswordReset';
/** The authorization server's records that act for an account (an assistant's codes and tokens). */
const GRANTED_MODELS = ['AuthorizationCode', 'AccessToken', 'RefreshToken'] as const;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const sha = (s: string) => createHash('sha256').update(s).digest('base64url');

/** How a reset link reaches the account's owner: its address, the link, its lifetime in minutes, the language asked for. */
export type DeliverReset = (email: string, url: string, minutes: number, locale: string | null) => void | Promise<void>;

export interface PasswordResetOptions {
  store: Store;
  log: Logger;
  /** The public origin the link points at, without its trailing slash. */
  base: () => string;
  /** Default: the log (no mailer is wired in), as the sign-up code. */
  deliver?: DeliverReset;
  now?: () => number;
  onEvent?: (e: AccountEvent) => void;
  /** Requests per address per hour. Default RESETS_PER_ADDRESS_HOUR. */
  perAddressHour?: number;
}

export type ResetOutcome = { changed: true; accountId: string } | { changed: false };

export class PasswordResets {
  private readonly o: PasswordResetOptions;
  private readonly now: () => number;
  private readonly deliver: DeliverReset;
  private readonly perAddress;
  private readonly perEmail = windowCounter(1, RESET_COOLDOWN_MS);
  private readonly completions = windowCounter(RESET_COMPLETIONS_PER_ADDRESS, 15 * 60_000);

  constructor(o: PasswordResetOptions) {
    this.o = o;
    this.now = o.now ?? Date.now;
    this.deliver =
      o.deliver ??
      ((_email, url) => o.log.info('password reset link (no mailer configured: delivered to the log)', { url }));
    this.perAddress = windowCounter(o.perAddressHour ?? RESETS_PER_ADDRESS_HOUR, 3600_000);
  }

  private event(stage: PasswordResetStage) {
    this.o.onEvent?.({ kind: 'password_reset', stage });
  }

  /**
   * Ask for a reset link. Resolves at once with nothing (the neutral answer) or Slowed (this address
   * asked too often); the account lookup and the mail follow in the background.
   */
  request(rawEmail: string, address: string, locale: string | null): Slowed | undefined {
    const email = normalizeEmail(rawEmail);
    const now = this.now();
    const wait = this.perAddress.take(address, now);
    if (wait > 0) {
      const waitS = Math.max(1, Math.ceil(wait / 1000));
      this.o.log.warn('account attempt refused: too many', {
        door: 'oauth',
        limit: 'reset_address',
        wait_s: waitS,
        address,
        email_ref: emailRef(email),
      });
      this.o.onEvent?.({ kind: 'locked_out', door: 'oauth', limit: 'reset_address' });
      return { waitS };
    }
    this.event('requested');
    void this.mailLink(email, now, locale).catch((err) =>
      this.o.log.warn('password reset not queued', { email_ref: emailRef(email), error: String(err) }),
    );
    return undefined;
  }

  private async mailLink(email: string, now: number, locale: string | null): Promise<void> {
    const account = await this.o.store.read((tx) => tx.accounts.byEmail(email));
    if (!account) {
      this.o.log.info('password reset asked for an email without an account: nothing sent', {
        email_ref: emailRef(email),
      });
      return;
    }
    // One mail per email per cooldown: the link sent moments ago is valid and in the same mailbox.
    if (this.perEmail.take(email, now) > 0) {
      this.o.log.info('password reset asked again within the cooldown: no new mail', { account: account.id });
      this.event('held');
      return;
    }
    const token = randomBytes(32).toString('base64url');
    await this.o.store.transaction((tx) =>
      tx.oauth.upsert({
        model: RESET_MODEL,
        id: sha(token),
        payload: { created_ms: now },
        grantId: null,
        uid: null,
        userCode: null,
        accountId: account.id,
        expiresMs: now + RESET_TTL_MS,
      }),
    );
    await this.deliver(account.email, `${this.o.base()}/account/reset/${token}`, RESET_TTL_MS / 60_000, locale);
    this.o.log.info('password reset link sent', { account: account.id });
    this.event('mailed');
  }

  /** Whether a link's token is one that can still be used (a page asks before showing the form; nothing is spent). */
  async valid(token: string): Promise<boolean> {
    if (!TOKEN.test(token)) return false;
    return (await this.o.store.read((tx) => tx.oauth.find(RESET_MODEL, sha(token), this.now()))) !== null;
  }

  /**
   * Set a new password through a link: the password is replaced, and the link, the account's other
   * links and all its sessions end, in one transaction. Slowed when this address tried too often.
   */
  async complete(token: string, password: string, address: string): Promise<ResetOutcome | Slowed> {
    const now = this.now();
    const wait = this.completions.take(address, now);
    if (wait > 0) {
      const waitS = Math.max(1, Math.ceil(wait / 1000));
      this.o.log.warn('account attempt refused: too many', {
        door: 'oauth',
        limit: 'reset_address',
        wait_s: waitS,
        address,
      });
      this.o.onEvent?.({ kind: 'locked_out', door: 'oauth', limit: 'reset_address' });
      return { waitS };
    }
    if (!TOKEN.test(token)) return this.rejected();
    const passwordHash = await hashPassword(password);
    const accountId = await this.o.store.transaction(async (tx) => {
      const rec = await tx.oauth.find(RESET_MODEL, sha(token), now);
      if (!rec?.accountId) return null;
      // Two tabs posting one link: the first to destroy it wins, the second finds it gone.
      await tx.lock([`password-reset:${rec.accountId}`]);
      if (!(await tx.oauth.find(RESET_MODEL, sha(token), now))) return null;
      if (!(await tx.accounts.setPassword(rec.accountId, passwordHash))) return null;
      for (const r of await tx.oauth.byAccount(RESET_MODEL, rec.accountId, now))
        await tx.oauth.destroy(RESET_MODEL, r.id);
      await tx.oauth.destroy(RESET_MODEL, rec.id);
      for (const s of await tx.oauth.byAccount(SESSION_MODEL, rec.accountId, now))
        await tx.oauth.destroy(SESSION_MODEL, s.id);
      // The authorization server's sessions keep wall-clock expiries (the library's), hence Date.now.
      for (const s of await tx.oauth.byAccount('Session', rec.accountId, Date.now()))
        await tx.oauth.destroy('Session', s.id);
      // Every linked assistant is signed out too: its grants, with every code and token issued under them,
      // and any token of the account left without a grant record.
      for (const g of await tx.oauth.byAccount('Grant', rec.accountId, Date.now()))
        await tx.oauth.revokeByGrantId(g.id);
      for (const model of GRANTED_MODELS)
        for (const r of await tx.oauth.byAccount(model, rec.accountId, Date.now())) await tx.oauth.destroy(model, r.id);
      return rec.accountId;
    });
    if (!accountId) return this.rejected();
    this.o.log.info('password reset completed: sessions ended', { account: accountId });
    this.event('completed');
    return { changed: true, accountId };
  }

  private rejected(): ResetOutcome {
    this.o.log.info('password reset link refused (used, expired or unknown)', {});
    this.event('link_rejected');
    return { changed: false };
  }
}
