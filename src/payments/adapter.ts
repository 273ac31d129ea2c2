/**
 * What a payment provider's adapter declares, so that nothing outside `src/payments/` names a
 * provider: its facts the core asks by name (name, label, checkout life), its webhook's signature
 * header and body limit, the flags and environment variables it reads (the CLI lists and parses
 * them from here), and how it turns those into a provider. Adapters register in `adapters.ts`.
 */
import type { PaymentProviderFacts } from '../operations/index.js';
import type { PaymentProvider } from './port.js';

/** One command-line flag of an adapter (a string), with the environment variable it falls back on. */
export interface PaymentFlag {
  /** The flag without its dashes (`stripe-secret-key`). */
  readonly name: string;
  /** The placeholder in the help (`KEY`). */
  readonly value: string;
  /** The environment variable read when the flag is absent. */
  readonly env?: string;
  /** The help's lines (the first beside the flag, the others under it). */
  readonly help: readonly string[];
  /** `--payments <name>` refuses to start without it. */
  readonly required?: boolean;
  /** Must be an http(s) URL. */
  readonly url?: boolean;
}

export interface PaymentAdapter<O = unknown> {
  readonly facts: PaymentProviderFacts;
  /** The header its webhook's signature comes in (read case-insensitively). */
  readonly signatureHeader: string;
  /** The largest webhook body the door accepts, if not the host's default. */
  readonly maxWebhookBytes?: number;
  readonly flags: readonly PaymentFlag[];
  /** The adapter's options from its flags' values (by flag name; the CLI checked the required and URL ones). */
  options(values: Readonly<Record<string, string | undefined>>): O;
  /** Whether options given by a program (not the CLI) miss something the provider cannot work without. */
  incomplete(options: O | undefined): boolean;
  create(options: O): PaymentProvider;
  /** Connected accounts (a platform taking payments for many businesses), if the provider has them. */
  readonly connect?: PaymentConnect<O>;
}

/**
 * A provider's connected accounts: a hosting deployment keeps each business's account and takes its
 * payments with the platform's options on it; the provider posts every account's events to one
 * endpoint of the platform, each naming its account.
 */
export interface PaymentConnect<O = unknown> {
  /** The flag naming a business's account (`host add --<flag>`); the adapter's own flag of that name. */
  readonly accountFlag: string;
  /** A well-formed account id. */
  readonly account: RegExp;
  /** The deployment's one endpoint for every account's events (a path). */
  readonly webhookPath: string;
  /** An event posted there, checked with the platform's options: its id, type and account (none: the platform's own); WebhookRejected otherwise. */
  verify(
    platform: O,
    rawBody: string,
    signature: string | undefined,
    nowMs: number,
  ): { id: string; type: string; account?: string };
  /** The platform's options, for one account. */
  withAccount(platform: O, account: string): O;
}

/** A flag as the help lists it: `--name VALUE`, its text from column 41, further lines under it. */
export function flagHelp(f: PaymentFlag): string {
  const head = `  --${f.name} ${f.value}`;
  const pad = ' '.repeat(40);
  return `${head.padEnd(40)}${f.help.join(`\n${pad}`)}`;
}

/** What `--payments <name>` needs and lacks, in the words of its flags (`--a (or A) and --b (or B)`). */
export function requiredFlagWords(a: PaymentAdapter, values = true): string {
  return a.flags
    .filter((f) => f.required)
    .map((f) => `--${f.name}${values ? ` ${f.value}` : ''}${f.env ? ` (or ${f.env})` : ''}`)
    .join(' and ');
}
