/**
 * The checker of the import rules of docs/ARCHITECTURE.md (the test is layering.test.ts): every file under src/ is parsed (a real
 * TypeScript parser, so comments and strings never count as imports), every static import, re-export
 * and dynamic import() is resolved to a layer, and each layer's rule lists what it may import.
 * A violation names file:line and the offending specifier.
 */
import { builtinModules } from 'node:module';
import { posix } from 'node:path';
import { parseSync } from 'vite';
import { lineIndex } from './ast.js';

// ------------------------------------------------------------------------------------------------
// The checker
// ------------------------------------------------------------------------------------------------

/** What an import specifier points at. */
type Target =
  | { kind: 'src'; layer: string; path: string }
  | { kind: 'outside'; path: string }
  | { kind: 'node'; name: string }
  | { kind: 'package'; name: string }
  /** A dynamic import whose argument is not a string literal: it cannot be checked, so no rule allows it. */
  | { kind: 'computed' };

export interface ImportRef {
  /** Repository-relative posix path of the importing file, e.g. `src/store/port.ts`. */
  file: string;
  line: number;
  specifier: string;
  how: 'import' | 'export' | 'dynamic';
  /** Every binding is a type (`import type`, `export type`, or only `type` names): erased at runtime. */
  typeOnly: boolean;
  /** `export * from` / `export * as ns from`. */
  star: boolean;
  target: Target;
}

export interface SourceFile {
  path: string;
  text: string;
}

const NODE_BUILTINS = new Set(builtinModules);

function resolveTarget(file: string, specifier: string | null): Target {
  if (specifier === null) return { kind: 'computed' };
  if (specifier.startsWith('.')) {
    const path = posix.normalize(posix.join(posix.dirname(file), specifier));
    if (!path.startsWith('src/')) return { kind: 'outside', path };
    const parts = path.split('/');
    return { kind: 'src', layer: parts.length > 2 ? parts[1] : '(root)', path };
  }
  if (specifier.startsWith('node:') || NODE_BUILTINS.has(specifier.split('/')[0])) {
    return { kind: 'node', name: specifier.replace(/^node:/, '') };
  }
  if (specifier.startsWith('/')) return { kind: 'outside', path: specifier };
  const parts = specifier.split('/');
  return { kind: 'package', name: specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0] };
}

function literal(raw: string): string | null {
  const m = /^(['"`])([^'"`$]*)\1$/.exec(raw.trim());
  return m ? m[2] : null;
}

/** Every import, re-export and dynamic import() of one file. Throws on a file that does not parse. */
export function parseImports(src: SourceFile): ImportRef[] {
  const result = parseSync(src.path, src.text, { lang: src.path.endsWith('x') ? 'tsx' : 'ts', sourceType: 'module' });
  if (result.errors.length > 0) {
    throw new Error(`${src.path} does not parse: ${result.errors.map((e) => e.message).join('; ')}`);
  }
  const lineOf = lineIndex(src.text);
  const ref = (
    start: number,
    specifier: string | null,
    how: ImportRef['how'],
    typeOnly: boolean,
    star: boolean,
  ): ImportRef => ({
    file: src.path,
    line: lineOf(start),
    specifier: specifier ?? '<computed>',
    how,
    typeOnly,
    star,
    target: resolveTarget(src.path, specifier),
  });

  const out: ImportRef[] = [];
  const mod = result.module;
  for (const imp of mod.staticImports) {
    // A side-effect import (`import 'x'`) has no entries and is a runtime import.
    const typeOnly = imp.entries.length > 0 && imp.entries.every((e) => e.isType);
    out.push(ref(imp.start, imp.moduleRequest.value, 'import', typeOnly, false));
  }
  for (const exp of mod.staticExports) {
    const reexports = exp.entries.filter((e) => e.moduleRequest);
    if (reexports.length === 0) continue;
    const star = reexports.some((e) => e.importName.kind === 'All' || e.importName.kind === 'AllButDefault');
    const typeOnly = reexports.every((e) => e.isType);
    out.push(ref(exp.start, reexports[0].moduleRequest!.value, 'export', typeOnly, star));
  }
  for (const dyn of mod.dynamicImports) {
    out.push(
      ref(dyn.start, literal(src.text.slice(dyn.moduleRequest.start, dyn.moduleRequest.end)), 'dynamic', false, false),
    );
  }
  return out.sort((a, b) => a.line - b.line);
}

export interface LayerRule {
  /** The rule as ARCHITECTURE.md states it. */
  name: string;
  /** Files under this folder follow the rule. */
  folder: string;
  /** null when the import is allowed, else why it is not. */
  check(imp: ImportRef): string | null;
}

/** One line per violation: `file:line imports 'specifier' (reason)`. */
export function violations(rule: LayerRule, imports: readonly ImportRef[]): string[] {
  return imports
    .filter((imp) => imp.file.startsWith(rule.folder))
    .flatMap((imp) => {
      const why = rule.check(imp);
      return why ? [`${imp.file}:${imp.line} ${imp.how}s '${imp.specifier}' (${why})`] : [];
    });
}

/** Files that use `export *` (habit 11: each layer's public surface is a list of named exports). */
export function starExports(imports: readonly ImportRef[]): string[] {
  return imports.filter((imp) => imp.star).map((imp) => `${imp.file}:${imp.line} export * from '${imp.specifier}'`);
}

/**
 * The folder whose index.ts is its public surface: `src/bindings/rest` and `src/bindings/mcp` each
 * have their own, every other layer is the first folder under src/, and files directly in src/ are
 * the package root (`src/index.ts`).
 */
export function surfaceOf(path: string): string {
  const parts = path.split('/');
  if (parts.length <= 2) return 'src';
  return parts[1] === 'bindings' && parts.length > 3 ? parts.slice(0, 3).join('/') : parts.slice(0, 2).join('/');
}

/** Imports that reach into another layer past its index.ts (habit 11); imports within a layer are free. */
export function bypassedIndexes(imports: readonly ImportRef[]): string[] {
  return imports.flatMap((imp) => {
    if (imp.target.kind !== 'src') return [];
    const from = surfaceOf(imp.file);
    const to = surfaceOf(imp.target.path);
    if (from === to || imp.target.path === `${to}/index.js`) return [];
    return [`${imp.file}:${imp.line} ${imp.how}s '${imp.specifier}' (use ${to}/index.ts)`];
  });
}

/**
 * Every import cycle among the files of src/, type-only imports included (a cycle of types still
 * ties two files together), each as `a.ts -> b.ts -> a.ts` starting from its smallest path.
 * Strongly connected components (Tarjan) so that every file in a tangle is named once.
 */
export function importCycles(imports: readonly ImportRef[]): string[] {
  const edges = new Map<string, Set<string>>();
  for (const imp of imports) {
    if (imp.target.kind !== 'src') continue;
    const to = imp.target.path.replace(/\.(js|mjs|cjs)$/, (ext) => ext.replace('js', 'ts'));
    if (!edges.has(imp.file)) edges.set(imp.file, new Set());
    edges.get(imp.file)!.add(to);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || edges.get(v)?.has(v)) components.push(component);
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  // Name each tangle by one cycle through it: a shortest path back to its smallest file.
  return components
    .map((component) => {
      const members = new Set(component);
      const start = [...component].sort()[0];
      const previous = new Map<string, string>();
      const queue = [start];
      let found = false;
      while (queue.length > 0 && !found) {
        const v = queue.shift()!;
        for (const w of [...(edges.get(v) ?? [])].sort()) {
          if (!members.has(w)) continue;
          if (w === start) {
            previous.set(start, v);
            found = true;
            break;
          }
          if (!previous.has(w)) {
            previous.set(w, v);
            queue.push(w);
          }
        }
      }
      const path = [start];
      for (let v = previous.get(start)!; v !== start; v = previous.get(v)!) path.splice(1, 0, v);
      path.push(start);
      const extra =
        component.length > path.length - 1
          ? ` (tangle of ${component.length} files: ${[...component].sort().join(', ')})`
          : '';
      return path.join(' -> ') + extra;
    })
    .sort();
}

const describeTarget = (t: Target) =>
  t.kind === 'src'
    ? `src/${t.layer}`
    : t.kind === 'outside'
      ? `outside src (${t.path})`
      : t.kind === 'node'
        ? `node built-in ${t.name}`
        : t.kind === 'package'
          ? `package ${t.name}`
          : 'a computed specifier';

/** A rule built from what a layer may import; anything else is reported. */
function allowOnly(
  name: string,
  folder: string,
  allowed: {
    layers: readonly string[];
    /** Layers that may be imported for their types only (erased at runtime). */
    typeOnlyLayers?: readonly string[];
    /** Package names, or 'any'. */
    packages: readonly string[] | 'any';
    /** Node built-in names without `node:`, or 'any'. */
    node: readonly string[] | 'any';
  },
): LayerRule {
  return {
    name,
    folder,
    check(imp) {
      const t = imp.target;
      if (t.kind === 'src') {
        if (allowed.layers.includes(t.layer)) return null;
        if (allowed.typeOnlyLayers?.includes(t.layer))
          return imp.typeOnly ? null : `src/${t.layer} may be imported for types only`;
        return `${describeTarget(t)} is not allowed here`;
      }
      if (t.kind === 'package' && (allowed.packages === 'any' || allowed.packages.includes(t.name))) return null;
      if (t.kind === 'node' && (allowed.node === 'any' || allowed.node.includes(t.name))) return null;
      return `${describeTarget(t)} is not allowed here`;
    },
  };
}

/** The door a file of src/bindings belongs to: `src/bindings/rest/app.ts` is in `rest`. */
const doorOf = (path: string) => path.split('/')[2];

/**
 * No door imports another door, not even for a type: each answers in its own format and can be
 * changed or dropped alone; what two doors say alike lives in the web kit (src/web).
 */
const separateDoors: LayerRule = {
  name: 'no door in src/bindings imports another door: what doors share lives in src/web',
  folder: 'src/bindings/',
  check(imp) {
    const t = imp.target;
    if (t.kind !== 'src' || t.layer !== 'bindings' || doorOf(t.path) === doorOf(imp.file)) return null;
    return `the ${doorOf(imp.file)} door imports the ${doorOf(t.path)} door; share through src/web`;
  },
};

/**
 * The pipeline machinery (src/operations/core: the pipeline, what a handler runs against, the table's
 * row type, the call's scope and channels, clock, ids, errors) knows no operation: it may import its
 * own files and the business it runs against beside it (src/operations/*.ts), never a context
 * folder (bookings/, availability/, registry/, ...), whose operations are built on it. The one
 * exception is a type: the handler's environment names the parts a context needs from outside the
 * store (`registry/env.ts`, `admin/sign-in-env.ts`), erased at runtime.
 */
const operationsCore: LayerRule = {
  name: 'src/operations/core imports no operation context (types aside): its own files and src/operations/*.ts',
  folder: 'src/operations/core/',
  check(imp) {
    const t = imp.target;
    if (t.kind !== 'src' || t.layer !== 'operations') return null;
    const parts = t.path.split('/');
    if (parts.length === 3 || parts[2] === 'core' || imp.typeOnly) return null;
    return `the context src/operations/${parts[2]}/ is built on the core, not the other way round`;
  },
};

/** The rules of docs/ARCHITECTURE.md ("Layers and what each may import"). */
export const RULES = {
  // zod is allowed: the business definition's shape is written once, as a zod schema in the domain,
  // and its types are inferred from it. zod only describes and checks values; it does no I/O.
  // @noble/hashes: SHA-256 of slot id tags (pure computation, no I/O; node:crypto is not allowed here).
  domain: allowOnly(
    'src/domain imports nothing with I/O: only its own files, luxon, zod and @noble/hashes',
    'src/domain/',
    {
      layers: ['domain'],
      packages: ['luxon', 'zod', '@noble/hashes'],
      node: [],
    },
  ),
  store: allowOnly('src/store imports only the domain, its own files, node built-ins and its drivers', 'src/store/', {
    layers: ['store', 'domain'],
    packages: ['better-sqlite3', 'pg'],
    node: 'any',
  }),
  operations: allowOnly(
    'src/operations imports only the domain, store types, security, its own files, zod and node:crypto',
    'src/operations/',
    {
      layers: ['operations', 'domain', 'security'],
      typeOnlyLayers: ['store'],
      packages: ['zod'],
      node: ['crypto'],
    },
  ),
  operationsCore,
  // Node built-ins are allowed: a door frames bytes (streams, stdio, request ids) and needs them.
  bindings: allowOnly(
    'src/bindings imports only src/operations, src/security, src/web, its own folder and packages: never the store or the domain',
    'src/bindings/',
    {
      layers: ['bindings', 'operations', 'security', 'web'],
      packages: 'any',
      node: 'any',
    },
  ),
  doors: separateDoors,
  security: allowOnly(
    'src/security imports only the domain, the store, its own files, packages and node built-ins',
    'src/security/',
    {
      layers: ['security', 'domain', 'store'],
      packages: 'any',
      node: 'any',
    },
  ),
  webhooks: allowOnly(
    'src/webhooks imports only the store, security, its own files, packages and node built-ins',
    'src/webhooks/',
    {
      layers: ['webhooks', 'store', 'security', 'outbox'],
      packages: 'any',
      node: 'any',
    },
  ),
  // The payment provider port and its adapters (Stripe), and the worker that calls the provider
  // after commit: the store's jobs, the pipeline for what the provider answers; never the domain.
  payments: allowOnly(
    'src/payments imports only operations, the store, its own files, packages and node built-ins: never the domain or a door',
    'src/payments/',
    {
      layers: ['payments', 'operations', 'store', 'outbox'],
      packages: 'any',
      node: 'any',
    },
  ),
  // The mail port, its adapters (SMTP, a folder of .eml files), the message templates and the worker
  // that sends the mail outbox after commit: the store's rows, the pure domain for the calendar
  // invite and money, the web kit's escaping template for HTML; never a door.
  mail: allowOnly(
    'src/mail imports only the domain, operations, the store, the outbox loop, web, its own files, packages and node built-ins: never a door',
    'src/mail/',
    {
      layers: ['mail', 'domain', 'operations', 'store', 'outbox', 'web'],
      packages: 'any',
      node: 'any',
    },
  ),
  // The OAuth door: an authorization server library and account pages. Like a door it reaches the
  // core through operations (the pipeline) and the security policy; its own records and the buyer
  // accounts go through the store's repositories; never the domain.
  oauth: allowOnly(
    'src/oauth imports only operations, security, the store, web, its own files, packages and node built-ins: never the domain or another door',
    'src/oauth/',
    {
      layers: ['oauth', 'operations', 'security', 'store', 'web'],
      packages: 'any',
      node: 'any',
    },
  ),
  // The loop every background worker runs over its queue (webhooks, payments, mail, calendar pushes):
  // scheduling and the pause while the database is away; what a pass does is the worker's own.
  outbox: allowOnly('src/outbox imports only the store, its own files and node built-ins', 'src/outbox/', {
    layers: ['outbox', 'store'],
    packages: [],
    node: 'any',
  }),
  // Calendar sync: feeds read through the pinned request (security), expanded with ical.js, stored
  // as claims (the store); bookings pushed to CalDAV with tsdav; both on the shared loop (outbox).
  // The domain for the calendar config and the iCalendar writer; never operations or a door.
  calendars: allowOnly(
    'src/calendars imports only the domain, the store, security, outbox, its own files, its libraries and node built-ins',
    'src/calendars/',
    {
      layers: ['calendars', 'domain', 'store', 'security', 'outbox'],
      packages: ['ical.js', 'tsdav', 'luxon'],
      node: 'any',
    },
  ),
  // What the doors share (reading forms, CSRF, pages, the problem document and its status table, the
  // USP-Agent header): it knows HTTP and HTML, and of the core only the protocol error it renders.
  web: allowOnly(
    'src/web imports only operations (the protocol error), its own files, packages and node built-ins: never a door',
    'src/web/',
    {
      layers: ['web', 'operations'],
      packages: 'any',
      node: 'any',
    },
  ),
  // The platform client library (`usp-server/client`): the other side of the protocol. It speaks the
  // wire only, with security's proofs and signature checks and the domain's types; never the store,
  // the operations or a door.
  client: allowOnly(
    'src/client imports only src/security, the domain (its types), its own files, packages and node built-ins: it is a platform',
    'src/client/',
    {
      layers: ['client', 'security', 'domain'],
      packages: 'any',
      node: 'any',
    },
  ),
  // The conformance suite is a CLIENT of a USP server: it sees only the wire. It signs as a platform
  // does (src/client, and the proof and signature code of src/security), never the store, the
  // operations or a door.
  conformance: allowOnly(
    'src/conformance imports only src/client, src/security, its own files, packages and node built-ins: it is a client of a USP server',
    'src/conformance/',
    {
      layers: ['conformance', 'client', 'security'],
      packages: 'any',
      node: 'any',
    },
  ),
} satisfies Record<string, LayerRule>;

/**
 * The files of src/server that answer HTTP themselves, besides the host's own endpoints (the host,
 * the listener, the probes and /metrics): a route, a Hono app or a Response built there is a door
 * that bypasses the pipeline. Comments are left out.
 */
// hosting.ts: the deployment's router answers, before any business, only an unknown host (404), a suspended one (503) and /healthz;
// hosted-probes.ts: /readyz and /metrics by host name in host mode (a business's own, or the deployment's).
const HOST_ENDPOINTS = new Set([
  'src/server/host.ts',
  'src/server/listener.ts',
  'src/server/probes.ts',
  'src/server/metrics-endpoint.ts',
  'src/server/hosting.ts',
  'src/server/hosted-probes.ts',
]);
export function doorsInServer(sources: readonly SourceFile[]): string[] {
  const door = /new Response\(|new Hono\b|\.(?:get|post|put|patch|delete|all|on)\(\s*(?:\[[^\]]*\]\s*,\s*)?['"`]\//;
  return sources
    .filter((f) => f.path.startsWith('src/server/') && !HOST_ENDPOINTS.has(f.path))
    .flatMap((f) => {
      const code = f.text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
      const m = door.exec(code);
      return m ? [`${f.path}: ${m[0]}`] : [];
    });
}
