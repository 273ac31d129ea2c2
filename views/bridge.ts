/**
 * The view's side of the MCP Apps protocol (extension io.modelcontextprotocol/ui, 2026-01-26):
 * JSON-RPC 2.0 over postMessage with the host window. It speaks what these views need and no more:
 * the ui/initialize handshake, the tool input and result notifications, host context (theme, style
 * variables, time zone, display size), tools/call, ui/message, ui/update-model-context, ui/open-link
 * and size changes. The package's own App class does the same but bundles to about 290 KB (zod and
 * the SDK core); the tests check this one against the package's host-side AppBridge.
 */
export const PROTOCOL_VERSION = '2026-01-26';

type Json = Record<string, any>;

export interface HostContext {
  theme?: 'light' | 'dark';
  timeZone?: string;
  locale?: string;
  styles?: { variables?: Record<string, string | undefined>; css?: { fonts?: string } };
  displayMode?: string;
  platform?: string;
}

export interface ToolResult {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Json;
  _meta?: Json;
  isError?: boolean;
}

export interface ViewHandlers {
  onInput?(args: Json): void;
  onResult(result: ToolResult): void;
  onContext?(ctx: HostContext): void;
}

/** A link the views will not hand the host: it is not an https address (or http to this machine). */
export class UnsafeLink extends Error {
  constructor(url: unknown) {
    super(`${JSON.stringify(String(url).slice(0, 40))} is not a secure web address (https)`);
    this.name = 'UnsafeLink';
  }
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The link as the views may open it, or null: what the server sends is data, and a host told to
 * open `javascript:` or `data:` might run it. Only `https:` is opened, and `http:` to this machine
 * (a server in development answers on loopback without TLS). The link is handed on as parsed, so
 * the host reads exactly the address that was checked.
 */
export function openableLink(url: unknown): string | null {
  if (typeof url !== 'string' || url.length > 8192) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol === 'https:') return parsed.href;
  if (parsed.protocol === 'http:' && LOOPBACK_HOST.test(parsed.hostname)) return parsed.href;
  return null;
}

export class HostBridge {
  private nextId = 1;
  private pending = new Map<number, { resolve(v: any): void; reject(e: Error): void }>();
  context: HostContext = {};
  hostCapabilities: Json = {};

  constructor(private readonly name: string, private readonly handlers: ViewHandlers) {}

  async connect(): Promise<void> {
    window.addEventListener('message', (e) => {
      if (e.source !== window.parent) return;
      const m = e.data;
      if (!m || m.jsonrpc !== '2.0') return;
      if ('id' in m && m.method === undefined) return this.settle(m);
      if (m.method && 'id' in m) return this.answer(m);
      if (m.method) this.notified(m.method, m.params ?? {});
    });
    const init = await this.request('ui/initialize', {
      protocolVersion: PROTOCOL_VERSION,
      appInfo: { name: this.name, version: '0.1.0' },
      appCapabilities: { availableDisplayModes: ['inline'] },
    });
    this.hostCapabilities = init.hostCapabilities ?? {};
    this.applyContext(init.hostContext ?? {});
    this.notify('ui/notifications/initialized', {});
    this.watchSize();
  }

  callTool(name: string, args: Json): Promise<ToolResult> {
    return this.request('tools/call', { name, arguments: args });
  }

  /** Tells the model, as the person's next message. */
  sendMessage(text: string): Promise<Json> {
    return this.request('ui/message', { role: 'user', content: [{ type: 'text', text }] });
  }

  /** Puts what the person chose into the model's context for its next turn. */
  updateModelContext(text: string, structuredContent?: Json): Promise<Json> {
    return this.request('ui/update-model-context', { content: [{ type: 'text', text }], ...(structuredContent ? { structuredContent } : {}) });
  }

  /** Asks the host to open a web page; a link that is not a web address (`openableLink`) is refused here and never reaches the host. */
  openLink(url: string): Promise<Json> {
    const link = openableLink(url);
    if (link === null) return Promise.reject(new UnsafeLink(url));
    return this.request('ui/open-link', { url: link });
  }

  private request(method: string, params: Json): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      window.parent.postMessage({ jsonrpc: '2.0', id, method, params }, '*');
    });
  }

  private notify(method: string, params: Json): void {
    window.parent.postMessage({ jsonrpc: '2.0', method, params }, '*');
  }

  private settle(m: Json): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.error) p.reject(new Error(String(m.error.message ?? 'error')));
    else p.resolve(m.result ?? {});
  }

  /** Requests from the host: ping and teardown answer empty; nothing else is offered. */
  private answer(m: Json): void {
    const ok = m.method === 'ping' || m.method === 'ui/resource-teardown';
    window.parent.postMessage(ok ? { jsonrpc: '2.0', id: m.id, result: {} } : { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } }, '*');
  }

  private notified(method: string, params: Json): void {
    if (method === 'ui/notifications/tool-input') this.handlers.onInput?.(params.arguments ?? {});
    else if (method === 'ui/notifications/tool-result') this.handlers.onResult(params as ToolResult);
    else if (method === 'ui/notifications/host-context-changed') this.applyContext(params);
  }

  private applyContext(ctx: HostContext): void {
    this.context = { ...this.context, ...ctx };
    const root = document.documentElement;
    if (ctx.theme === 'light' || ctx.theme === 'dark') {
      root.dataset.theme = ctx.theme;
      root.style.colorScheme = ctx.theme;
    }
    for (const [k, v] of Object.entries(ctx.styles?.variables ?? {})) if (k.startsWith('--') && typeof v === 'string') root.style.setProperty(k, v);
    this.handlers.onContext?.(this.context);
  }

  private watchSize(): void {
    let last = '';
    const send = () => {
      const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      const width = Math.ceil(window.innerWidth);
      const key = `${width}x${height}`;
      if (key === last) return;
      last = key;
      this.notify('ui/notifications/size-changed', { width, height });
    };
    // Told at once: an observer's callback runs after layout, in the frame that drew the change, so
    // the host can size the frame before it is painted (a requestAnimationFrame here cost a frame).
    new ResizeObserver(send).observe(document.body);
    send();
  }
}
