/** What the views share: the server's view data, the clock it answered at, and a status line. */
import { UnsafeLink, type HostBridge, type ToolResult } from './bridge.js';
import { status } from './dom.js';
import { META_VIEW, type ViewData } from '../src/bindings/mcp/view-shape.js';

export type { ViewData };
export { META_VIEW };

export function viewData(r: ToolResult): ViewData | undefined {
  return r._meta?.[META_VIEW] as ViewData | undefined;
}

/** The server's now, moving on with this page's monotonic clock (deadlines never use the device's date). */
export function serverClock(data: ViewData | undefined): () => number {
  const base = data?.now ? Date.parse(data.now) : Date.now();
  const t0 = performance.now();
  return () => base + (performance.now() - t0);
}

/** The messages of a result that are errors, as sentences. */
export function errors(r: ToolResult): string[] {
  const msgs = (r.structuredContent?.messages ?? []) as Array<{ type?: string; content?: string }>;
  return msgs.filter((m) => m.type === 'error').map((m) => String(m.content ?? 'Refused.'));
}

/** A result that failed as a whole (isError without messages) says so in its text. */
export function failure(r: ToolResult): string | null {
  const e = errors(r);
  if (e.length) return e.join(' ');
  if (r.isError) return r.content?.find((c) => c.type === 'text')?.text ?? 'The call failed.';
  return null;
}

/**
 * Opens a payment page through the host and says what happened, as a status line for the view: a
 * link that is not a web address is refused without asking the host (the server's data is not
 * trusted to be one), and so is a host that declines.
 */
export async function openPayment(bridge: HostBridge, url: unknown): Promise<HTMLElement> {
  try {
    const r = await bridge.openLink(String(url));
    return r.isError ? status('The host did not open the payment page; ask the assistant for the link.', 'error') : status('The payment page was opened.');
  } catch (e) {
    if (e instanceof UnsafeLink) return status(`The payment link was not opened: ${e.message}. Ask the assistant or the business for the payment page.`, 'error');
    return status(`Could not open the payment page: ${(e as Error).message}`, 'error');
  }
}
