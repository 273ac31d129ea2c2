/** `usp-server webhooks`: the delivery log, and putting failed deliveries back in the queue. */
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

const HELP = `usp-server webhooks: the webhook delivery log

Usage:
  usp-server webhooks list [--status S] [--limit N]    deliveries, newest first, with every attempt (status, latency, error)
  usp-server webhooks retry ID | --failed              put a failed delivery (or all of them) back in the queue

--status is pending, delivered, failed, canceled or skipped (a reserved name such as *.example, never sent); --limit defaults to 20.

${OFFLINE_HELP}
`;

async function run(flags: Flags, args: string[]): Promise<number> {
  const [sub, id] = args;
  if (sub !== 'list' && sub !== 'retry')
    throw new UsageError(`unknown webhooks command ${JSON.stringify(sub ?? '')} (see usp-server webhooks --help)`);
  const { server, db } = await openOffline(flags);
  try {
    if (sub === 'list') {
      const status = flags.status as 'pending' | 'delivered' | 'failed' | 'canceled' | 'skipped' | undefined;
      const rows = await server.store.read((tx) =>
        tx.webhooks.list({ status, limit: intFlag(flags, 'limit', 1) ?? 20 }),
      );
      for (const d of rows) {
        console.log(
          `#${d.id}  ${d.status.padEnd(9)} ${d.event.padEnd(24)} ${d.event_id}  -> ${d.target_url}  attempts ${d.attempts}${d.last_status ? `  last HTTP ${d.last_status}` : ''}${d.last_error ? `  (${d.last_error})` : ''}`,
        );
        const attempts = await server.store.read((tx) => tx.webhooks.attempts(d.id));
        for (const a of attempts) {
          console.log(
            `      attempt ${a.attempt} at ${new Date(a.at_ms).toISOString()}: ${a.status_code ?? 'no response'} in ${a.latency_ms} ms${a.error ? ` - ${a.error}` : ''}`,
          );
        }
      }
      if (rows.length === 0) console.log('no deliveries');
    } else {
      const target = flags.failed ? null : Number(id);
      if (target !== null && !Number.isInteger(target))
        throw new UsageError('Usage: usp-server webhooks retry ID | --failed   (usp-server webhooks --help says more)');
      const n = await server.store.transaction((tx) => tx.webhooks.retry(target, server.clock.now()));
      if (target !== null && n === 0)
        throw new CommandError(
          `no failed delivery #${target} in ${shownDb(db)} (usp-server webhooks list --status failed shows them)`,
        );
      console.log(`${n} deliver${n === 1 ? 'y' : 'ies'} queued again; the running server sends them at its next pass`);
    }
    return 0;
  } finally {
    await server.close();
  }
}

export const webhooksCommand: Command = { name: 'webhooks', help: HELP, run };
