/**
 * The MCP Apps views (extension `io.modelcontextprotocol/ui`, 2026-01-26): one `ui://` resource per
 * view an operation's row names (`view`), linked from its tool by `_meta.ui.resourceUri` and served
 * by `resources/read` on every transport. The HTML is built from views/ at `npm run build` into
 * dist/views/, one self-contained file per view; it is read once and kept.
 */
import { readFileSync } from 'node:fs';
import type { AppView } from '../../operations/index.js';

/** The MIME type of an MCP App (the extension's `RESOURCE_MIME_TYPE`). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The extension's identifier, as a host advertises it under `capabilities.extensions`. */
export const APP_EXTENSION_ID = 'io.modelcontextprotocol/ui';

export interface AppViewInfo {
  uri: string;
  name: string;
  title: string;
  description: string;
  /** The built file under dist/views/. */
  file: string;
}

export const APP_VIEWS: Readonly<Record<AppView, AppViewInfo>> = Object.freeze({
  slot_picker: {
    uri: 'ui://usp/slots',
    name: 'usp-slot-picker',
    title: 'Slot picker',
    description:
      "The free slots of an availability query by day, in the person's and the business's time zones; choosing one holds it or tells the assistant.",
    file: 'slot-picker.html',
  },
  booking_card: {
    uri: 'ui://usp/booking',
    name: 'usp-booking-card',
    title: 'Booking card',
    description:
      'A hold or booking: what, when, where, with whom, the price and what is due, the terms, the state, the deadline as a countdown and the payment link.',
    file: 'booking-card.html',
  },
  waitlist_card: {
    uri: 'ui://usp/waitlist',
    name: 'usp-waitlist-card',
    title: 'Waitlist card',
    description: 'A waitlist entry: its position, what happens next, and accept or decline while an offer stands.',
    file: 'waitlist-card.html',
  },
});

/**
 * What a view may reach (`_meta.ui.csp`): nothing. Every script, style and image is inlined, and
 * calls go through the host (`tools/call`), so no origin is declared for connections, resources
 * or frames; a host applies its strictest default policy.
 */
const VIEW_META = Object.freeze({
  ui: Object.freeze({
    csp: Object.freeze({
      connectDomains: Object.freeze([]),
      resourceDomains: Object.freeze([]),
      frameDomains: Object.freeze([]),
    }),
    prefersBorder: true,
  }),
});

/** The tool `_meta` linking an operation's tool to its view, one frozen object per view. */
const TOOL_META = Object.fromEntries(
  Object.entries(APP_VIEWS).map(([k, v]) => [k, Object.freeze({ ui: Object.freeze({ resourceUri: v.uri }) })]),
) as Record<AppView, { ui: { resourceUri: string } }>;

export function toolViewMeta(view: AppView): { ui: { resourceUri: string } } {
  return TOOL_META[view];
}

/** The `resources/list` entries of the views. */
export const VIEW_RESOURCES = Object.freeze(
  Object.values(APP_VIEWS).map((v) =>
    Object.freeze({
      uri: v.uri,
      name: v.name,
      title: v.title,
      description: v.description,
      mimeType: APP_MIME_TYPE,
      _meta: VIEW_META,
    }),
  ),
);

const BUILT = new URL('../../../dist/views/', import.meta.url);
const html = new Map<string, string>();

/** Raised when a view's file is missing: the server was started from sources without `npm run build`. */
export class ViewNotBuilt extends Error {}

/** The view behind a `ui://` URI, or undefined when none is. */
export function viewByUri(uri: string): AppViewInfo | undefined {
  return Object.values(APP_VIEWS).find((v) => v.uri === uri);
}

/** The `resources/read` answer of a view: its HTML with the extension's MIME type and CSP metadata. */
export function readView(view: AppViewInfo): { contents: Array<Record<string, unknown>> } {
  let text = html.get(view.file);
  if (text === undefined) {
    try {
      text = readFileSync(new URL(view.file, BUILT), 'utf8');
    } catch {
      throw new ViewNotBuilt(
        `The view ${view.uri} is not built on this server (dist/views/${view.file}); run npm run build.`,
      );
    }
    html.set(view.file, text);
  }
  return { contents: [{ uri: view.uri, mimeType: APP_MIME_TYPE, text, _meta: VIEW_META }] };
}
