/**
 * Listening for one's own booking and waitlist events on the stateless 2026-07-28 MCP revision
 * (`subscriptions/listen`): a row served by the MCP door alone, which runs it through the pipeline
 * before it opens the stream. The stream carries every event of the principals whose webhook
 * resources it names, buyers' personal data included, so a listener is authenticated like any
 * privileged call and may name only its own resource (`usp://webhooks/...` of its principal).
 * Resources outside that namespace (the views) never change and are let through.
 */
import { z } from 'zod';
import { defineOperation, ok } from '../core/define.js';
import { ProtocolError } from '../core/errors.js';
import { WEBHOOK_RESOURCE_PREFIX } from '../webhook-resource.js';

export const listenForEvents = defineOperation({
  name: 'listen_for_events',
  // Served only as MCP's subscriptions/listen on POST /mcp: no REST route, no tool (onlyDoor).
  rest: { method: 'POST', path: '/mcp', input: 'body' },
  onlyDoor: 'mcp_listen',
  access: 'privileged_platform',
  // The events are those of the bookings usp:booking lets a token make and manage.
  scopes: ['usp:booking'],
  capability: 'dev.usp-protocol.services.bookings',
  mutating: false,
  conditional: false,
  writes: false,
  summary:
    "Listen for this platform's own booking and waitlist events (MCP subscriptions/listen on the stateless revision only).",
  input: z.object({
    resource_subscriptions: z
      .array(z.string().max(2048))
      .max(64)
      .describe('The resource URIs the listen request names.'),
  }),
  async handle(inp, ctx) {
    const principal = ctx.caller.business ? null : ctx.caller.principal;
    const own = principal ? ctx.env?.webhookResourceUri?.(principal) : undefined;
    if (!own) {
      throw new ProtocolError(
        'authentication_required',
        'Only a platform hears booking and waitlist events; authenticate as the platform whose events these are.',
        {
          detailCode: 'authentication_missing',
        },
      );
    }
    const foreign = inp.resource_subscriptions.find((uri) => uri.startsWith(WEBHOOK_RESOURCE_PREFIX) && uri !== own);
    if (foreign !== undefined) {
      // The same answer whether the resource names another principal or nobody: nothing is confirmed.
      throw new ProtocolError(
        'not_found',
        `No resource ${foreign.slice(0, 200)} for this caller: listen to the webhook resource named in _meta["dev.usp-server/webhook_resource"] of your own tool results.`,
        { detailCode: 'resource_not_found', extra: { uri: foreign.slice(0, 200) } },
      );
    }
    return ok({ webhook_resource: own });
  },
});
