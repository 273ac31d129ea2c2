import { z } from 'zod';
import { isoUtc } from '../../domain/index.js';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { BUSINESS_READ } from '../change-rows.js';
import { Out } from '../schemas.js';

/**
 * The mail log: the latest messages to people, newest first, each with its state (queued, sent,
 * failed, canceled), when it was queued, due and sent, and why it last failed. Never the text: a
 * message's payload can hold a sign-up code.
 */
export const listSentMail = defineOperation({
  name: 'list_sent_mail',
  rest: { method: 'GET', path: '/admin/mail/messages', input: 'query' },
  ...BUSINESS_READ,
  dashboard: 'mail_log',
  output: { messages: Out.objects },
  summary:
    'The mail log, newest first: each message to a buyer or account, its state (queued, sent, failed, canceled), when, and the last error.',
  input: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const list = await ctx.tx.mail.recent(inp.limit);
    return ok({
      messages: list.map((m) => ({
        kind: m.kind,
        recipient: m.recipient,
        // The booking it is about, when it is about one (a sign-up code names an account).
        ...(m.subject_id.startsWith('bkg_') ? { booking_id: m.subject_id } : {}),
        status: m.status,
        attempts: m.attempts,
        created_at: isoUtc(m.created_ms),
        due_at: isoUtc(m.due_ms),
        ...(m.sent_ms !== null ? { sent_at: isoUtc(m.sent_ms) } : {}),
        ...(m.last_error ? { error: m.last_error } : {}),
      })),
    });
  },
});
