/**
 * Builds the MCP Apps views (views/*.ts) into dist/views/<name>.html: each view's script bundled
 * and minified by vite into one inline <script>, the shared style sheet inline, and a
 * Content-Security-Policy meta tag that allows nothing from outside the file. Fails when a view
 * passes its size budget.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/views');
const BUDGET = 60 * 1024;
const VIEWS = [
  { entry: 'slot-picker', title: 'Available times' },
  { entry: 'booking-card', title: 'Booking' },
  { entry: 'waitlist-card', title: 'Waitlist' },
];

// Nothing may load from anywhere: inline script and style only, images only as data: URIs.
const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const css = readFileSync(join(ROOT, 'views/style.css'), 'utf8')
  .replace(/\/\*[\s\S]*?\*\//g, '')
  .replace(/\s*\n\s*/g, '\n')
  .trim();

mkdirSync(OUT, { recursive: true });
for (const v of VIEWS) {
  const out = await build({
    configFile: false,
    logLevel: 'warn',
    root: ROOT,
    build: {
      write: false,
      minify: true,
      target: 'es2022',
      lib: { entry: join(ROOT, `views/${v.entry}.ts`), formats: ['iife'], name: 'view', fileName: v.entry },
    },
  });
  const outputs = (Array.isArray(out) ? out : [out]).flatMap((o) => o.output);
  const js = outputs
    .filter((o) => o.type === 'chunk')
    .map((o) => o.code)
    .join('\n');
  // An inline script ends at the first "</script": keep the bundle from ever containing one.
  const safeJs = js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta http-equiv="Content-Security-Policy" content="${CSP}"><meta name="referrer" content="no-referrer"><title>${v.title}</title><style>${css}</style></head><body><div id="app"></div><script>${safeJs}</script></body></html>\n`;
  const size = Buffer.byteLength(html);
  if (size > BUDGET) throw new Error(`views/${v.entry}: ${size} bytes, over the ${BUDGET}-byte budget`);
  writeFileSync(join(OUT, `${v.entry}.html`), html);
  console.log(`dist/views/${v.entry}.html ${size} bytes`);
}
