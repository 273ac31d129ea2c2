/**
 * Where buyers' mail goes, chosen at start: an SMTP relay (`--smtp-url`, or SMTP_URL), a folder of
 * .eml files (`--mail-dir`; the demo uses one under its data directory), a transport handed in by
 * a test, or nowhere (messages are still queued, and sent once a transport is configured). The
 * worker runs on the shared loop; a committed call nudges it. Sign-up codes go by mail when a
 * transport is set.
 */
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { TEMPLATE_PATH_RULE, isTemplatePath } from '../domain/index.js';
import {
  MailWorker,
  checkSmtpUrl,
  dirTransport,
  previewMails,
  smtpTransport,
  type MailAddress,
  type MailPreview,
  type MailTransport,
} from '../mail/index.js';
import { queueMailForEvents, type Business, type EventChannel, type Logger } from '../operations/index.js';
import { accountMailSubject, type Store } from '../store/index.js';

export interface MailOptions {
  /** smtp://user:pass@host:port or smtps://…; never logged with its credentials. */
  smtpUrl?: string;
  /** The From header, `Name <address>` or an address (default: the business's name at no-reply@ the public host). */
  from?: string;
  /** Write each message as an .eml file here instead of sending it. */
  dir?: string;
  /** A transport to use instead (tests). */
  transport?: MailTransport;
  /** Accept a relay's self-signed certificate (tests and local relays only). */
  tlsRejectUnauthorized?: boolean;
  /**
   * The templates folder: `settings.mail_templates` names files inside it and nowhere else
   * (`--mail-templates-dir`, else the business file's folder). Without one, no template is read.
   */
  templateBase?: string;
  pollMs?: number;
  /** False: the worker runs only when its `tick()` is called. Default true. */
  startWorker?: boolean;
}

export interface MailWiring {
  worker?: MailWorker;
  /**
   * The mail channel: its messages written in the transaction that raised their events (queued even
   * with no transport, sent once one is configured), and its worker woken once that committed.
   */
  channel: EventChannel;
  /** Where mail goes, safe to print (`dir:/…`, `smtp://host:port`), or undefined. */
  describe?: string;
  /** Sign-up codes by mail (undefined: the OAuth door keeps its default). */
  deliverCode?: (email: string, code: string) => void;
  /** Every kind of message from a sample booking, with the business's templates (the dashboard's preview). */
  preview?: () => MailPreview[];
  /** Password reset links by mail, in the language the request asked for (queued before it resolves). */
  deliverReset?: (email: string, url: string, minutes: number, locale: string | null) => Promise<void>;
}

export function checkMailOptions(o: MailOptions | undefined): void {
  if (!o) return;
  if (o.smtpUrl && o.dir)
    throw new Error('--smtp-url and --mail-dir are exclusive: mail is either sent or written to a folder');
  if (o.smtpUrl) checkSmtpUrl(o.smtpUrl);
  if (o.from !== undefined && !parseMailFrom(o.from))
    throw new Error('--mail-from must be an address or "Name <address>"');
}

/** `Name <address>`, `"Name" <address>` or a bare address, as an address object; null when it is neither. */
export function parseMailFrom(s: string): MailAddress | null {
  const v = s.trim();
  if (/[\u0000-\u001f\u007f]/.test(v)) return null;
  const named = /^(.*?)\s*<([^\s@<>"]+@[^\s@<>"]+)>$/.exec(v);
  if (named) return { name: named[1].replace(/^"(.*)"$/, '$1').trim(), address: named[2] };
  return /^[^\s@<>"]+@[^\s@<>"]+$/.test(v) ? { name: '', address: v } : null;
}

/** The business's name as a display name: one line, whatever it holds (the transport quotes it). */
function displayName(name: string): string {
  return name
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The most a template file may hold (a message's text, not a document). */
const TEMPLATE_MAX_BYTES = 64 * 1024;

/**
 * The templates the settings name, read once at start from inside the templates folder. One that
 * cannot be used (no folder, a path the rule refuses, a file missing, unreadable, too large, or
 * whose real path leaves the folder through a link) is skipped with a warning: that kind keeps its
 * built-in text, and the server starts.
 */
/** One empty map for every business without templates of its own (read only). */
const NO_OVERRIDES: ReadonlyMap<string, string> = new Map();

function readOverrides(biz: Business, base: string | undefined, log: Logger): ReadonlyMap<string, string> {
  const entries = Object.entries(biz.def.settings.mail_templates ?? {});
  if (entries.length === 0) return NO_OVERRIDES;
  const out = new Map<string, string>();
  const skip = (kind: string, reason: string) =>
    log.warn('mail template not used: the built-in text is sent', {
      setting: `settings.mail_templates.${kind}`,
      reason,
    });
  let root: string | undefined;
  try {
    root = base === undefined ? undefined : realpathSync(base);
  } catch (err) {
    log.warn('mail templates folder cannot be read', {
      folder: base,
      reason: (err as NodeJS.ErrnoException).code ?? String(err),
    });
  }
  for (const [kind, path] of entries) {
    if (!root) {
      skip(kind, 'no templates folder (give --mail-templates-dir or a business file)');
      continue;
    }
    if (!isTemplatePath(path)) {
      skip(kind, `the path must be ${TEMPLATE_PATH_RULE}`);
      continue;
    }
    try {
      const real = realpathSync(resolve(root, path));
      if (!real.startsWith(root + sep)) {
        skip(kind, 'the file is outside the templates folder');
        continue;
      }
      const st = statSync(real);
      if (!st.isFile() || st.size > TEMPLATE_MAX_BYTES) {
        skip(kind, st.isFile() ? `larger than ${TEMPLATE_MAX_BYTES} bytes` : 'not a file');
        continue;
      }
      out.set(kind, readFileSync(real, 'utf8'));
    } catch (err) {
      skip(kind, `cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  }
  return out;
}

/** Whether the options name a transport: the business's buyer mail is sent (a fact the texts tell). */
export function sendsMail(o: MailOptions | undefined): boolean {
  return Boolean(o?.transport || o?.smtpUrl || o?.dir);
}

export function wireMail(
  o: MailOptions | undefined,
  deps: { business: () => Business; store: Store; now: () => number; log: Logger },
): MailWiring {
  const overrides = readOverrides(deps.business(), o?.templateBase, deps.log);
  const transport =
    o?.transport ??
    (o?.smtpUrl
      ? smtpTransport(o.smtpUrl, { tlsRejectUnauthorized: o.tlsRejectUnauthorized })
      : o?.dir
        ? dirTransport(o.dir, deps.now)
        : undefined);
  // The public URL may be set only once the server listens: read it at send time.
  // An address object, never a header string: a business name such as "Hair: Studio 5 <evil@x.test>" stays a name.
  const configured = o?.from !== undefined ? parseMailFrom(o.from) : null;
  const from = (): MailAddress => {
    if (configured) return configured;
    const biz = deps.business();
    return { name: displayName(biz.def.business.name), address: `no-reply@${new URL(biz.publicUrl).hostname}` };
  };
  const preview = () => previewMails({ biz: deps.business(), from: from(), overrides }, deps.now());
  const queue: EventChannel['write'] = async (tx, { biz, events, now, created }) => {
    if (biz) await queueMailForEvents(tx, biz, events, now, created);
  };
  if (!transport) return { preview, channel: { name: 'mail', write: queue } };
  const worker = new MailWorker({
    store: deps.store,
    transport,
    business: deps.business,
    from,
    now: deps.now,
    log: deps.log,
    overrides,
    pollMs: o?.pollMs,
  });
  const deliverCode = (email: string, code: string) => {
    const now = deps.now();
    const id = `signup:${createHash('sha256').update(`${email}|${code}`).digest('hex').slice(0, 24)}|signup_code|${email.toLowerCase()}`;
    void deps.store
      .transaction((tx) =>
        tx.mail.enqueue({
          id,
          kind: 'signup_code',
          subject_id: accountMailSubject(email),
          recipient: email,
          locale: null,
          payload: { code },
          due_ms: now,
          created_ms: now,
        }),
      )
      .then(() => worker.nudge())
      .catch((err) => deps.log.warn('sign-up code not queued', { error: String(err) }));
  };
  const deliverReset = async (email: string, url: string, minutes: number, locale: string | null) => {
    const now = deps.now();
    // Keyed by the link: each link is one message; the row is the only place its token is kept in the clear, until it is used or expires.
    const id = `reset:${createHash('sha256').update(url).digest('hex').slice(0, 24)}|password_reset|${email.toLowerCase()}`;
    await deps.store.transaction((tx) =>
      tx.mail.enqueue({
        id,
        kind: 'password_reset',
        subject_id: accountMailSubject(email),
        recipient: email,
        locale,
        payload: { url, minutes },
        due_ms: now,
        created_ms: now,
      }),
    );
    worker.nudge();
  };
  const channel: EventChannel = { name: 'mail', write: queue, committed: () => worker.nudge() };
  return { worker, channel, describe: transport.description, deliverCode, deliverReset, preview };
}
