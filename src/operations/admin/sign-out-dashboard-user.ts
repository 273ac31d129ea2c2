/**
 * Signing out of the business's dashboard, as a row the dashboard runs through the pipeline as the
 * signed-in user: the session's row is deleted in the pipeline's transaction, so the old cookie
 * stops opening anything at once, in every process sharing the store.
 */
import { z } from 'zod';
import { defineOperation, ok, requireBusiness } from '../core/define.js';
import { ProtocolError } from '../core/errors.js';
import { sessionIdHash } from './dashboard-sessions.js';

export const signOutDashboardUser = defineOperation({
  name: 'sign_out_dashboard_user',
  rest: { method: 'POST', path: '/admin/logout', input: 'body' },
  onlyDoor: 'dashboard',
  access: 'business_only',
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  writes: true,
  dashboard: 'sign_out',
  summary: "Sign a business user out of the dashboard (the dashboard's form only): the session ends on the server.",
  input: z.object({ session_token: z.string().min(1).max(256).describe("The session's cookie value.") }),
  // The cookie value opens the dashboard until the row is gone: never logged.
  logInput: () => ({}),
  async handle(inp, ctx) {
    requireBusiness(ctx);
    const id = sessionIdHash(inp.session_token);
    const session = await ctx.tx.admin.session(id, ctx.now);
    // Only the signed-in user's own session: a session is not named by anyone else.
    if (session && ctx.caller.actor !== `user:${session.email}`)
      throw new ProtocolError('not_found', 'No such session of yours.');
    if (session) await ctx.tx.admin.deleteSession(id);
    return ok({ signed_out: true });
  },
});
