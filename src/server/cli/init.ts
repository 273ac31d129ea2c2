/**
 * `usp-server init`: a business of one's own in one step. Asks (in a terminal) or takes from flags
 * the business's name, time zone, currency and first service, and writes a business file whose ids
 * are made from the names (`biz_her_salon`), so its database is its own and never the demo's.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { resolve } from 'node:path';
import { checkBusinessDocument, idFrom, type BusinessDef } from '../../domain/index.js';
import { parseMoney } from '../../operations/index.js';
import { CommandError, UsageError, type Command, type Flags } from './common.js';

const HELP = `usp-server init: write a business file for a new business

Usage:
  usp-server init [--name NAME] [--timezone ZONE] [--currency CODE] [--service NAME] [--price AMOUNT]
                  [--minutes N] [--staff NAME] [--out FILE] [--force]

Asks for what the flags do not give when run in a terminal; otherwise the flags are all it reads
(--name and --service are required). The business's id is made from its name (biz_...), so its
database (~/.local/share/usp-server/<id>.db unless --db) is its own. Prints the command to start it.

Options:
  --name NAME                 the business's name, e.g. "Rosa's Hair Studio"
  --timezone ZONE             IANA time zone of its opening hours (default: this machine's)
  --currency CODE             ISO 4217 currency of its prices (default USD)
  --service NAME              the first service, e.g. "Haircut"
  --price AMOUNT              its price in the currency's unit, e.g. 65 or 65.00 (default 0: free)
  --minutes N                 its length in minutes (default 60)
  --staff NAME                who delivers it (default "Owner"); Monday to Friday 09:00-17:00
  --out FILE                  where to write (default business.json); an existing file needs --force
`;

export { idFrom };

interface Answers {
  name: string;
  timezone: string;
  currency: string;
  service: string;
  price: string;
  minutes: string;
  staff: string;
}

/** The business file for the answers (checked as `validate` checks a file). */
export function businessFileFor(a: Answers): BusinessDef {
  const currency = a.currency.toUpperCase();
  const price = parseMoney(a.price, currency);
  if (!price.ok) throw new UsageError(`--price: ${price.message}`);
  const minutes = Number(a.minutes);
  if (!Number.isInteger(minutes) || minutes < 5 || minutes > 1440)
    throw new UsageError(
      `--minutes must be a whole number of minutes from 5 to 1440, not ${JSON.stringify(a.minutes)}`,
    );
  const day = [{ opens: '09:00', closes: '17:00' }];
  const staffId = idFrom('res', a.staff);
  const doc = {
    business: {
      id: idFrom('biz', a.name),
      name: a.name,
      timezone: a.timezone,
      currency,
      locations: [{ id: 'loc_main', name: a.name }],
    },
    resources: [
      {
        id: staffId,
        type: 'staff',
        name: a.staff,
        location_id: 'loc_main',
        schedule: { monday: day, tuesday: day, wednesday: day, thursday: day, friday: day },
      },
    ],
    services: [
      {
        id: idFrom('svc', a.service),
        name: a.service,
        type: 'appointment',
        status: 'active',
        duration: { fixed: `PT${minutes}M` },
        pricing: price.amount > 0 ? { model: 'fixed', amount: price.amount, currency } : { model: 'free', currency },
        channel: { type: 'at_business_location' },
        policies: {
          cancellation: { allowed: true, free_cancellation_until: 'PT24H' },
          rescheduling: { allowed: true, free_reschedule_until: 'PT24H' },
          booking_window: { min_advance: 'PT1H', max_advance: 'P60D', slot_interval: 'PT15M' },
          confirmation_mode: 'auto',
          // Paid at the appointment: no payment provider is needed to start taking bookings.
          ...(price.amount > 0
            ? { requires_payment: true, payment_timing: 'at_service' }
            : { requires_payment: false }),
        },
        requirements: [{ type: 'staff', name: 'Staff', selectable: true, resource_ids: [staffId] }],
        location_ids: ['loc_main'],
      },
    ],
  };
  const checked = checkBusinessDocument(doc);
  if (!checked.ok) throw new UsageError(checked.issues.map((i) => `${i.path}: ${i.message}`).join('; '));
  return doc as unknown as BusinessDef;
}

async function answersOf(flags: Flags): Promise<Answers> {
  const given = {
    name: flags.name,
    timezone: flags.timezone,
    currency: flags.currency,
    service: flags.service,
    price: flags.price,
    minutes: flags.minutes,
    staff: flags.staff,
  };
  const defaults = {
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    currency: 'USD',
    price: '0',
    minutes: '60',
    staff: 'Owner',
  };
  if (process.stdin.isTTY && process.stdout.isTTY && Object.values(given).some((v) => v === undefined)) {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    try {
      const ask = async (q: string, fallback?: string) =>
        (await rl.question(fallback ? `${q} [${fallback}]: ` : `${q}: `)).trim() || fallback || '';
      given.name ??= await ask("The business's name");
      given.timezone ??= await ask('Its time zone', defaults.timezone);
      given.currency ??= await ask('Its currency', defaults.currency);
      given.service ??= await ask('Its first service');
      given.price ??= await ask(`Its price in ${given.currency.toUpperCase()}`, defaults.price);
      given.minutes ??= await ask('How long it takes, in minutes', defaults.minutes);
      given.staff ??= await ask('Who does it', defaults.staff);
    } finally {
      rl.close();
    }
  }
  const missing = (['name', 'service'] as const).filter((k) => !given[k]?.trim());
  if (missing.length)
    throw new UsageError(`give ${missing.map((k) => `--${k}`).join(' and ')} (usp-server init --help)`);
  return {
    name: given.name!.trim(),
    service: given.service!.trim(),
    timezone: given.timezone ?? defaults.timezone,
    currency: given.currency ?? defaults.currency,
    price: given.price ?? defaults.price,
    minutes: given.minutes ?? defaults.minutes,
    staff: given.staff?.trim() || defaults.staff,
  };
}

async function run(flags: Flags): Promise<number> {
  const out = flags.out ?? 'business.json';
  if (existsSync(out) && !flags.force)
    throw new CommandError(`${out} already exists; give --out another file, or --force to replace it`);
  const def = businessFileFor(await answersOf(flags));
  writeFileSync(out, `${JSON.stringify(def, null, 2)}\n`);
  const svc = def.services[0];
  console.log(
    `Wrote ${resolve(out)}: ${def.business.name} (id ${def.business.id}), ${def.business.timezone}, ${def.business.currency}; first service ${svc.name}.`,
  );
  console.log(`Next: npx usp-server serve --config ${out}`);
  return 0;
}

export const initCommand: Command = { name: 'init', help: HELP, run };
