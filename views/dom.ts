/**
 * Building the page: elements made with createElement and text set as text nodes, so every value
 * from a result is escaped by construction (no innerHTML anywhere in the views).
 */
type Child = Node | string | number | null | undefined | false;

export function h(tag: string, attrs: Record<string, string | boolean | ((e: Event) => void) | undefined> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'number' ? String(c) : c);
  return el;
}

export function mount(...nodes: Node[]): void {
  const root = document.getElementById('app')!;
  root.replaceChildren(...nodes);
}

/** A status line read out by screen readers when it changes. */
export function status(text: string, kind: 'info' | 'error' = 'info'): HTMLElement {
  return h('p', { class: `status ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

const fmtCache = new Map<string, Intl.DateTimeFormat>();

function fmt(zone: string, opts: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = zone + JSON.stringify(opts);
  let f = fmtCache.get(key);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', { ...opts, timeZone: zone });
    } catch {
      f = new Intl.DateTimeFormat('en-US', { ...opts, timeZone: 'UTC' });
    }
    fmtCache.set(key, f);
  }
  return f;
}

/** "Thu, Dec 3" in a zone. */
export const dayLabel = (ms: number, zone: string) => fmt(zone, { weekday: 'short', month: 'short', day: 'numeric' }).format(ms);
/** "6:00 PM" in a zone. */
export const clock = (ms: number, zone: string) => fmt(zone, { hour: 'numeric', minute: '2-digit' }).format(ms);
/** "Thu, Dec 3, 6:00 PM EST" in a zone. */
export const when = (ms: number, zone: string) => fmt(zone, { weekday: 'short', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }).format(ms);
/** The calendar day key (YYYY-MM-DD) of an instant in a zone. */
export const dayKey = (ms: number, zone: string) => fmt(zone, { year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms).replace(/(\d+)\/(\d+)\/(\d+)/, '$3-$1-$2');

/** "4 min 05 s" until a deadline, or null once it has passed. */
export function countdown(deadlineMs: number, nowMs: number): string | null {
  const s = Math.floor((deadlineMs - nowMs) / 1000);
  if (s <= 0) return null;
  const hours = Math.floor(s / 3600);
  const min = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return hours > 0 ? `${hours} h ${String(min).padStart(2, '0')} min` : `${min} min ${sec} s`;
}

/** The person's zone from the host context, else the browser's. */
export function personZone(ctxZone: string | undefined): string {
  return ctxZone || Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}
