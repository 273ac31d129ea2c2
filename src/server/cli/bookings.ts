/** `usp-server bookings`: the business acts on its own bookings, against the server's database. */
import { operationForCommand, type OperationResponse } from '../../operations/index.js';
import { formatInstant } from '../../domain/index.js';
import {
  CommandError,
  OFFLINE_HELP,
  UsageError,
  intFlag,
  openOffline,
  shownDb,
  type Command,
  type Flags,
} from './common.js';

const HELP = `usp-server bookings: act on the business's bookings as the business itself

Usage:
  usp-server bookings list [--status S] [--limit N]     list recent bookings (default 20)
  usp-server bookings get ID                            show one booking
  usp-server bookings confirm ID                        confirm a manual-confirmation booking
  usp-server bookings start|complete|no-show ID         mark a booking in progress / completed / no-show
  usp-server bookings cancel ID [--reason TEXT]         cancel as the business (no fee, full refund)
  usp-server bookings dispute-open ID --reason CODE     record a payment dispute (chargeback) on a paid booking
  usp-server bookings dispute-review ID                 the open dispute is under review
  usp-server bookings dispute-resolve ID --outcome buyer|business [--refund MINOR_UNITS]
                                                        resolve it (for the buyer: refund, all collected by default)

Events these raise go to the database's outbox; the running server delivers them.

${OFFLINE_HELP}
`;

/**
 * Print the booking and the messages; a protocol error or a message of type error is a failure
 * (exit 1), and an unknown id names the database that was read, since the usual cause is a
 * command pointed at another database than the server's.
 */
function printResponse(res: OperationResponse, db: string): void {
  if (!res.ok && res.error.detailCode === 'booking_not_found')
    throw new CommandError(
      `booking_not_found: no such booking in ${shownDb(db)} (give the --demo or --config and the --db the server runs with)`,
    );
  if (!res.ok) throw new CommandError(`${res.error.code}: ${res.error.message}`);
  const failures = res.messages.filter((m) => m.type === 'error');
  for (const m of res.messages) if (m.type !== 'error') console.error(`${m.type}: ${m.code}: ${m.content}`);
  const b = res.data.booking as Record<string, unknown> | undefined;
  if (b && failures.length === 0) console.log(JSON.stringify(b, null, 2));
  if (failures.length === 0) return;
  const lines = failures.map((m) => `${m.code}: ${m.content}`);
  throw new CommandError(lines.join('\n'));
}

async function run(flags: Flags, args: string[]): Promise<number> {
  const [sub, id] = args;
  // Each subcommand but list is an operation: its row names the subcommand (`cli`).
  const op = sub === 'list' ? undefined : operationForCommand(sub ?? '');
  if (sub !== 'list' && !op)
    throw new UsageError(`unknown bookings command ${JSON.stringify(sub ?? '')} (see usp-server bookings --help)`);
  if (op && !id) throw new UsageError(`Usage: usp-server bookings ${sub} ID   (usp-server bookings --help says more)`);
  // Events raised here land in the outbox; the running server's dispatcher delivers them.
  const { server, db } = await openOffline(flags);
  const caller = { principal: 'business', profile: null, business: true, actor: 'cli' };
  try {
    if (!op) {
      const limit = intFlag(flags, 'limit', 1) ?? 20;
      const recs = await server.store.read((tx) => tx.bookings.recent(limit, flags.status));
      for (const r of recs) {
        const b = r.booking;
        console.log(
          `${b.id}  ${b.status.padEnd(15)} ${formatInstant(r.priv.start_ms, server.biz.zone)}  ${b.service_name}  ${b.buyer.first_name} ${b.buyer.last_name}`,
        );
      }
      if (recs.length === 0) console.log('no bookings');
      return 0;
    }
    const input: Record<string, unknown> = { booking_id: id };
    if (sub === 'cancel' && flags.reason) input.reason = flags.reason;
    if (sub === 'dispute-open') input.reason = flags.reason;
    if (sub === 'dispute-resolve') {
      input.outcome = flags.outcome;
      if (flags.refund !== undefined) input.refund_amount = intFlag(flags, 'refund', 1);
    }
    printResponse(await server.pipeline.execute(op, { input, trustedCaller: caller }, server.scope), db);
    return 0;
  } finally {
    await server.close();
  }
}

export const bookingsCommand: Command = {
  name: 'bookings',
  help: HELP,
  run,
};
