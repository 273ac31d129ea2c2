/**
 * A test host for the MCP Apps views: a Chromium page that embeds a view in a sandboxed iframe and
 * speaks the extension's protocol to it with the package's own AppBridge, while the host's duties
 * (tools/call to the server, ui/open-link, ui/message, ui/update-model-context) run here in Node
 * through a real SDK client connected to a real usp-server.
 */
import { join } from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { build } from 'vite';
import { REPO_ROOT } from '../support/build.js';
import { PLATFORM } from '../support/server.js';
import type { McpConn } from '../mcp/helpers.js';

let hostScript: Promise<string> | undefined;

/** The host page's script: host-entry.js with the AppBridge bundled in (built once per run). */
export function hostBundle(): Promise<string> {
  hostScript ??= (async () => {
    const out: any = await build({
      configFile: false,
      logLevel: 'warn',
      root: REPO_ROOT,
      build: {
        write: false,
        minify: true,
        target: 'es2022',
        lib: { entry: join(REPO_ROOT, 'test/apps/host-entry.js'), formats: ['iife'], name: 'host', fileName: 'host' },
      },
    });
    return (Array.isArray(out) ? out : [out])
      .flatMap((o: any) => o.output)
      .filter((o: any) => o.type === 'chunk')
      .map((o: any) => o.code)
      .join('\n');
  })();
  return hostScript;
}

export interface HostLog {
  calls: Array<{ name: string; arguments: Record<string, unknown>; result: any }>;
  links: string[];
  messages: any[];
  modelContext: any[];
}

export interface HostedView {
  page: Page;
  view: Frame;
  log: HostLog;
  close(): Promise<void>;
}

export const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1024, height: 800 } } as const;
export type Size = keyof typeof SIZES;

/** Host styles: the style variables a host sends (a subset), light and dark. */
const THEMES = {
  light: {
    '--color-background-primary': '#ffffff',
    '--color-text-primary': '#1a1a1a',
    '--color-text-secondary': '#555555',
    '--color-border-primary': '#cfcfcf',
    '--font-sans': 'system-ui, sans-serif',
  },
  dark: {
    '--color-background-primary': '#1e1f22',
    '--color-text-primary': '#ececec',
    '--color-text-secondary': '#b5b5b5',
    '--color-border-primary': '#45474d',
    '--font-sans': 'system-ui, sans-serif',
  },
} as const;

/**
 * Opens the view `uri` of the server behind `conn` on a host page showing `result` (a tools/call
 * result) for the tool called with `input`. The host's tools/call adds the platform's profile and
 * the server makes the idempotency key: the host holds the credentials, the view never sees them.
 */
export async function hostView(
  browser: Browser,
  conn: McpConn,
  opts: {
    uri: string;
    input: Record<string, unknown>;
    result: any;
    theme?: 'light' | 'dark';
    size?: Size;
    timeZone?: string;
  },
): Promise<HostedView> {
  const size = opts.size ?? 'desktop';
  const theme = opts.theme ?? 'light';
  const res = await conn.client.readResource({ uri: opts.uri });
  const html = res.contents[0].text as string;
  const context = await browser.newContext({ viewport: SIZES[size], colorScheme: theme });
  const page = await context.newPage();
  const log: HostLog = { calls: [], links: [], messages: [], modelContext: [] };
  if (process.env.USP_APPS_DEBUG) {
    page.on('console', (m) => console.log(`[page ${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => console.log(`[page error] ${e.message}`));
  }
  await page.exposeFunction('hostCallTool', async (params: { name: string; arguments?: Record<string, unknown> }) => {
    const args = { ...(params.arguments ?? {}), _meta: { usp: { profile: PLATFORM } } };
    const result = await conn.client.callTool({ name: params.name, arguments: args });
    log.calls.push({ name: params.name, arguments: params.arguments ?? {}, result });
    return result;
  });
  await page.exposeFunction('hostOpenLink', (p: { url: string }) => void log.links.push(p.url));
  await page.exposeFunction('hostMessage', (p: unknown) => void log.messages.push(p));
  await page.exposeFunction('hostModelContext', (p: unknown) => void log.modelContext.push(p));
  const dbg = (m: string) => process.env.USP_APPS_DEBUG && console.log(`[host] ${m}`);
  dbg('setContent');
  await page.setContent(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title><style>body{margin:0;background:${theme === 'dark' ? '#111' : '#fafafa'}}</style></head><body></body></html>`,
  );
  const script = await hostBundle();
  dbg(`bundle ${script.length}`);
  await page.addScriptTag({ content: script });
  dbg('startHost');
  await page.evaluate((a) => (globalThis as any).startHost(a), {
    html,
    input: opts.input,
    result: opts.result,
    width: SIZES[size].width,
    context: {
      theme,
      timeZone: opts.timeZone ?? 'America/Los_Angeles',
      locale: 'en-US',
      platform: size === 'phone' ? 'mobile' : 'desktop',
      displayMode: 'inline',
      containerDimensions: { width: SIZES[size].width, maxHeight: 2000 },
      styles: { variables: THEMES[theme] },
    },
  });
  const view = page.frames().find((f) => f !== page.mainFrame());
  if (!view) throw new Error('the view frame did not load');
  return { page, view, log, close: () => context.close() };
}
