/**
 * The server's log sink: the `Logger` every layer writes to, backed by pino. One JSON object per
 * line (or pino-pretty's readable lines on a terminal), always on stderr: `usp-server mcp` carries
 * the protocol on stdout, and `serve` keeps the same habit so that one rule holds for both.
 *
 * Buyer personal data never reaches the sink. Two nets, both applied to every line whoever wrote it:
 * - members named for personal data (`buyer`, `email`, `first_name`, `phone_number`, `delivery_address`,
 *   a booking's `notes`, ...) are replaced by `[redacted]` at any depth, and `reason` (a cancellation's
 *   or a decline's) below the top level;
 * - every other string is scrubbed of anything shaped like an e-mail address or a phone number, for
 *   free text (notes, error messages, URLs) that may quote one.
 */
import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pino, type Level, type Logger as PinoLogger } from 'pino';
import type PinoPretty from 'pino-pretty';
import type { Logger } from '../operations/index.js';

export type LogLevel = Level | 'silent';
export type LogFormat = 'json' | 'pretty';

export const LOG_LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

export interface LoggerOptions {
  /** Default `info`. */
  level?: LogLevel;
  /** Default: `pretty` when stderr is a terminal, else `json`. */
  format?: LogFormat;
  /** Where lines go (tests); default stderr, through a bounded buffer flushed at exit (see createLogger). */
  destination?: NodeJS.WritableStream | { write(line: string): void };
}

/** A Logger that also exposes the pino instance underneath (for its level and flush). */
export interface ServerLogger extends Logger {
  readonly pino: PinoLogger;
  debug(msg: string, fields?: Record<string, unknown>): void;
}

const REDACTED = '[redacted]';

/** Member names whose value is a buyer's personal data, wherever they appear. */
const PII_KEYS = new Set([
  'buyer',
  'buyers',
  'attendee',
  'attendees',
  'guest',
  'guests',
  'customer',
  'contact',
  'first_name',
  'last_name',
  'given_name',
  'family_name',
  'full_name',
  'email',
  'email_address',
  'phone',
  'phone_number',
  'delivery_address',
  'address',
  // The buyer's own words: notes on a booking and why they cancel or decline (health, plans, family).
  'notes',
  'note',
  'special_requests',
  'cancellation_reason',
]);

/**
 * Redacted below the top level only: inside a call's input or a booking (`input.reason`,
 * `cancellation.reason`) it is the buyer's text; a line's own top-level `reason` is the server's
 * (why the database is unavailable).
 */
const NESTED_PII_KEYS = new Set(['reason']);

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.[\p{L}]{2,}/gu;
// International numbers (+ and 7-15 digits, spaces, dots, dashes or brackets between) and the
// common national 3-3-4 shape; dates (2026-01-10) and epoch milliseconds do not match.
const PHONE = /\+\d[\d ().-]{5,}\d|\(?\b\d{3}\)?[ .-]\d{3}[ .-]\d{4}\b/g;

/**
 * Replace e-mail addresses and phone numbers in free text. An address needs an `@`: without one the
 * Unicode-class scan is skipped (most strings of a call's line, ids and names, have none).
 */
function scrubText(s: string): string {
  return (s.includes('@') ? s.replace(EMAIL, '[email]') : s).replace(PHONE, '[phone]');
}

/** A copy of `value` with personal data redacted (see the module comment); cycles and depth are bounded. */
export function scrub(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8 || seen.has(value)) return '[…]';
  seen.add(value);
  if (value instanceof Error) return scrubText(`${value.name}: ${value.message}`);
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const key = k.toLowerCase();
    const personal = PII_KEYS.has(key) || (depth > 0 && NESTED_PII_KEYS.has(key));
    out[k] = personal && v !== null && v !== undefined ? REDACTED : scrub(v, depth + 1, seen);
  }
  return out;
}

/**
 * JSON lines leave through an in-memory buffer written to stderr asynchronously (pino flushes it
 * synchronously when the process exits). Written synchronously, every call waited on whoever reads
 * stderr: an MCP host reading it slowly slowed each stdio call, and one not reading it at all
 * stopped the server once the pipe was full. Past this many bytes waiting, new lines are dropped,
 * never the calls (docs/DECISIONS.md, "Doors near their floors").
 */
export const STDERR_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Lines logged within this many milliseconds of the first of them leave stderr in one write. Each
 * write is a trip to libuv's thread pool and back; one per line was the largest cost of the stdio
 * door's own (a tools/call writes one line): the trips are now one per batch, after the answers
 * rather than before them (docs/DECISIONS.md, "One stderr write per batch of log lines").
 */
export const STDERR_BATCH_MS = 20;

/** A batch this long leaves at once, without waiting for the rest of its window. */
const STDERR_BATCH_BYTES = 16 * 1024;

/**
 * Stderr through pino's asynchronous destination (bounded: see STDERR_BUFFER_BYTES), lines held up
 * to STDERR_BATCH_MS first. At exit, pino writes what its destination holds and then this writes
 * the held lines after it, synchronously, so no line is lost or reordered by the batching.
 */
function batchedStderr(): pino.DestinationStream {
  const dest = pino.destination({ fd: 2, sync: false, maxLength: STDERR_BUFFER_BYTES });
  const open = () => !(dest as { destroyed?: boolean }).destroyed;
  let held = '';
  let timer: NodeJS.Timeout | undefined;
  const release = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const lines = held;
    held = '';
    if (lines && open()) dest.write(lines);
  };
  // Registered after pino's own exit hook (made with the destination): runs after it.
  process.once('exit', () => {
    if (timer) clearTimeout(timer);
    if (held && open()) writeSync(2, held);
    held = '';
  });
  return {
    write(line: string) {
      held += line;
      if (held.length >= STDERR_BATCH_BYTES) release();
      else if (!timer) {
        timer = setTimeout(release, STDERR_BATCH_MS);
        timer.unref();
      }
    },
    // pino.flush() (a signal's exit path) flushes the held lines too.
    flush(cb?: (err?: Error) => void) {
      release();
      dest.flush(cb);
    },
  } as pino.DestinationStream;
}

/**
 * pino-pretty (about 80 files) only for a terminal: a server logging JSON (a service, a container, a
 * pipe) never loads it. A `require` of the CommonJS package, as making the logger is synchronous.
 */
function prettyStream(): typeof PinoPretty {
  return createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
}

export function createLogger(opts: LoggerOptions = {}): ServerLogger {
  const format = opts.format ?? (process.stderr.isTTY ? 'pretty' : 'json');
  const destination =
    opts.destination ??
    (format === 'pretty'
      ? prettyStream()({
          destination: 2,
          sync: true,
          colorize: Boolean(process.stderr.isTTY),
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname',
        })
      : batchedStderr());
  const p = pino(
    {
      level: opts.level ?? 'info',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // No pino `redact` paths: every member they named is in PII_KEYS, which scrub() below replaces
      // at any depth before pino sees the line, and its wildcard paths cost ~14 µs on every line.
      hooks: {
        logMethod(args, method) {
          // Every call passes (fields, msg) — see below — so both are scrubbed before pino sees them.
          const [fields, msg, ...rest] = args as unknown[];
          const cleanFields = scrub(fields) as object;
          const cleanMsg = typeof msg === 'string' ? scrubText(msg) : msg;
          return method.apply(this, [cleanFields, cleanMsg, ...rest] as Parameters<typeof method>);
        },
      },
    },
    destination as pino.DestinationStream,
  );
  const at =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (msg: string, fields?: Record<string, unknown>): void => {
      p[level](fields ?? {}, msg);
    };
  return { pino: p, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
