/**
 * What a view shows beside a result (`_meta["dev.usp-server/view"]`): the one shape the MCP door
 * writes (view-data.ts) and the views read (views/shared.ts). No imports, so the browser code
 * can type-check against it.
 */
export const META_VIEW = 'dev.usp-server/view';

export interface ViewData {
  business: string;
  /** The business's IANA time zone; the view shows it beside the person's. */
  zone: string;
  /** The server's clock when it answered: a view counts deadlines down from it, not from the device's clock. */
  now: string;
  service?: string;
  /** A hold's start (RFC 3339), read from its slot id: the hold itself carries none. */
  start?: string;
  place?: { name: string; address: string | null };
  price?: string;
  /** What is still to pay now (a payment action's amount, or the booking's amount_due). */
  due?: string;
  /** How the price is paid, in words. */
  payment?: string;
  /** A canceled booking's fee and refund, as money. */
  cancellation?: { fee: string; refund: string };
  /** The cancellation, rescheduling and no-show terms, one sentence each. */
  terms?: string[];
}
