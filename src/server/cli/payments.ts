/** `serve`'s payment flags: which mode takes online payments, and each provider adapter's own flags (flags or environment), read off the adapters. */
import { flagHelp, paymentAdapter, paymentAdapters, paymentChoices } from '../../payments/index.js';
import type { PaymentOptions } from '../payments-wiring.js';
import { UsageError, type Flags } from './common.js';

export const PAYMENTS_HELP = paymentsHelp();

function paymentsHelp(): string {
  return `Payments (who takes the buyer's money for services paid when booking):
  --payments ${paymentChoices().join('|')}   default: external with --checkout-url, sandbox with --sandbox/--demo, else none
                                        (none: services paid when booking cannot be booked; the start-up log names them)
${paymentAdapters()
  .flatMap((a) => a.flags.map(flagHelp))
  .join('\n')}
  --checkout-url TEMPLATE               an external checkout page: {booking_id}, {action_id}, {amount}, {currency} and
                                        {return_url} (our page that returns the buyer to the platform) are filled in`;
}

/** The payment options of `serve`, or undefined for the default choice. */
export function paymentOptions(flags: Flags, env: NodeJS.ProcessEnv = process.env): PaymentOptions | undefined {
  const kind = flags.payments;
  if (kind === undefined) return undefined;
  if (!paymentChoices().includes(kind))
    throw new UsageError(`--payments must be one of ${paymentChoices().join(', ')}, got ${JSON.stringify(kind)}`);
  if (kind === 'external' && !flags['checkout-url'])
    throw new UsageError('--payments external needs --checkout-url TEMPLATE');
  const adapter = paymentAdapter(kind);
  if (!adapter) return { provider: kind };
  const values: Record<string, string | undefined> = {};
  for (const f of adapter.flags) {
    const v = (flags as Record<string, unknown>)[f.name] ?? (f.env ? env[f.env] : undefined);
    values[f.name] = typeof v === 'string' ? v : undefined;
  }
  for (const f of adapter.flags) {
    if (f.required && !values[f.name])
      throw new UsageError(`--payments ${kind} needs --${f.name} ${f.value}${f.env ? ` (or ${f.env})` : ''}`);
  }
  for (const f of adapter.flags) {
    const v = values[f.name];
    if (f.url && v !== undefined && !/^https?:\/\/[^/]/.test(v))
      throw new UsageError(`--${f.name} must be an http(s) URL, got ${JSON.stringify(v)}`);
  }
  return { provider: kind, [kind]: adapter.options(values) };
}
