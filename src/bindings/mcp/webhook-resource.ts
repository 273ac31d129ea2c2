/**
 * Where a 2026-07-28-era MCP client hears its events: the stateless revision has no custom
 * notifications, so each principal's booking and waitlist events are `notifications/resources/updated`
 * on its own resource, named by a hash so the URI does not reveal the principal.
 */
import { createHash } from 'node:crypto';

export const WEBHOOK_RESOURCE_PREFIX = 'usp://webhooks/';

export function webhookResourceUri(principal: string): string {
  return WEBHOOK_RESOURCE_PREFIX + createHash('sha256').update(principal).digest('base64url');
}
