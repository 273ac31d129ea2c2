/**
 * The owner's invitation (the operator's `invite`): a one-time dashboard setup link at the business's
 * own origin (the link a start logs; see offerDashboardSetup), queued in the business's own mail
 * outbox so that it goes out through its mail, in its name. The link's token lives in the clear only
 * in that mail row, as a password reset's does.
 */
import { createHash } from 'node:crypto';
import { OperatorRefusal } from '../bindings/operator/index.js';
import { SETUP_TTL_MS, mailableAddress, offerDashboardSetup } from '../operations/index.js';
import type { UspServer } from './options.js';

/** Mail the owner of a loaded business her setup link; refused when she has an account, or when the business sends no mail. */
export async function inviteOwner(s: UspServer, email: unknown): Promise<void> {
  if (!mailableAddress(email))
    throw new OperatorRefusal('invalid', 'email is the owner’s email address, e.g. "owner@example.com".');
  if (!s.mailWorker)
    throw new OperatorRefusal(
      'conflict',
      'this business sends no mail (the deployment has no --smtp-url or --mail-dir); give its owner the setup link from the log instead.',
    );
  const now = s.clock.now();
  const offer = await offerDashboardSetup(s.store, now);
  if (!offer)
    throw new OperatorRefusal(
      'conflict',
      'the business already has a dashboard account; its owner signs in (or resets her password).',
    );
  const url = `${s.biz.publicUrl}/admin/setup?token=${offer.token}`;
  const to = email.toLowerCase();
  const id = `invite:${createHash('sha256').update(url).digest('hex').slice(0, 24)}|owner_invite|${to}`;
  await s.store.transaction((tx) =>
    tx.mail.enqueue({
      id,
      kind: 'owner_invite',
      subject_id: 'dashboard_owner',
      recipient: to,
      locale: null,
      payload: { url, hours: SETUP_TTL_MS / 3600_000 },
      due_ms: now,
      created_ms: now,
    }),
  );
  s.mailWorker.nudge();
}
