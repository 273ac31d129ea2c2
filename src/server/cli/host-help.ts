/** `usp-server host --help`, and the payment adapters with connected accounts that it and the command name. */
import { paymentAdapters, requiredFlagWords } from '../../payments/index.js';
import { DEFAULT_REREGISTER_MS } from '../register-with.js';
import { LOG_HELP } from './common.js';

/** The payment adapters with connected accounts (Stripe Connect). */
export const CONNECT = paymentAdapters().filter((a) => a.connect);

export const HELP = `usp-server host: many businesses in one process, each at its own host name

Usage:
  usp-server host add FILE --host NAME[,NAME...]   host the business of a business file at these names
  usp-server host add --demo --host NAME[,NAME...] host the built-in demo business
${CONNECT.map((a) => `      [--${a.connect!.accountFlag} ACCOUNT]`.padEnd(51) + `(either) its ${a.facts.label} connected account`).join('\n')}
  usp-server host payment-account ID ACCOUNT|--none   set or forget a business's connected payment account;
                                                   no two businesses share one
  usp-server host list [--json]                    the businesses, their names and status
  usp-server host suspend ID [--reason TEXT]       nothing can be booked until resumed: its profile,
                                                   catalog and tools say so (with the reason); reads,
                                                   cancellations and its dashboard keep working
  usp-server host resume ID                        take bookings again
  usp-server host remove ID [--export FILE]        export then delete a business: its registrations
                                                   removed (a serving deployment must still serve it
                                                   for the registry to check the signature), its host
                                                   names freed, its store deleted (SQLite file removed,
                                                   PostgreSQL schema dropped: give the serve's --db);
                                                   --export FILE first copies its SQLite database
  usp-server host serve [options]                  serve every business on one port

A request's Host (its port dropped) picks the business; a name no business has gets 404. Each
business is composed whole (its own store, workers, keys, OAuth and dashboard) on its first request;
its public origin is its first host name with the deployment's scheme and port. Names under
.localhost (rosa.localhost) reach this machine without DNS; curl and browsers resolve them.

Every subcommand:
  --data DIR                  the deployment's folder: its directory (deployment.db) and, on SQLite,
                              each business's database under businesses/ (default
                              $XDG_DATA_HOME/usp-server/hosting, else ~/.local/share/usp-server/hosting)
  --db postgres://...         the deployment is on this PostgreSQL database: every business a schema of
                              its own (usp_<id>), and the directory too (schema "usp-deployment"), so
                              every process serving the database (behind any load balancer) shares
                              it: a business added, suspended or removed through one is so at every
                              other within moments. Give it to every subcommand.
  --pg-keyed                  with --db: every business in one schema (usp_keyed), its rows keyed by
                              business under row-level security, on one pool for the process, not a
                              schema each (connect as a role that is neither superuser nor BYPASSRLS).
                              Give it to serve and remove alike.

host serve:
  --port N                    port to listen on (default 8787, or $PORT; 0 picks a free one)
  --host ADDRESS              address to listen on (default 127.0.0.1)
  --sandbox                   accept privileged calls without platform authentication (every business)
  --allow-loopback-profiles   fetch platform profiles from loopback addresses (development)
  --max-loaded N              most businesses composed at once; the least recently used is closed (default 200)
  --idle-close SECONDS        close a business unused this long (default 600; 0: never)
  --wake-interval SECONDS     how often to wake the businesses not loaded whose background work is due
                              (mail, reminders, webhook retries, payment jobs, calendar pushes and polls,
                              expiries; each held open at most 10 s, then closed again) (default 15; 0: never)
  --wake-concurrency N        businesses woken at once (default 2)
  --public-scheme http|https  the scheme of the businesses' origins (default: the listener's); https
                              when a TLS proxy is in front
  --public-port N             the port of the businesses' origins (default: the listener's; 443 behind a proxy)
  --smtp-url URL              send every business's mail through this relay (or SMTP_URL), each From its
                              own name at no-reply@<its host name>
  --mail-dir DIR              write each business's mail as .eml files in DIR/<business id> instead
  --tls-cert FILE --tls-key FILE   serve HTTPS directly
  --trust-proxy LIST          the TLS-terminating proxies in front (see usp-server serve --help)
  --operator-host NAME        serve the operator's admin API (JSON, /businesses) at this host name
                              only; no business can have it. Needs an operator key:
  --operator-key KEY          the operator's key (Authorization: Bearer KEY), no business's; repeatable
  --operator-key-hash SHA256  the same given as its sha-256 hex digest (keeps the key out of the
                              process list); repeatable
  --register-with URL         register every business with the registry at URL (repeatable), each at
                              its own profile URL, signed with its own key; again after its catalog
                              changes and every --register-interval; a business added while serving is
                              registered at the next directory scan, one removed is forgotten
  --register-interval SECONDS register again this often (default ${DEFAULT_REREGISTER_MS / 1000}; at most 86400)
  --directory-scan SECONDS    read the directory for added and removed businesses this often (default 5)
${CONNECT.map(
  (a) =>
    `  ${requiredFlagWords(a)}\n                              ${a.facts.label}'s connected accounts with the platform's keys (the\n                              adapter's other flags too): each business with an account takes payments\n                              on it; every account's events go to <any business's origin>${a.connect!.webhookPath}`,
).join('\n')}
${LOG_HELP}
`;
