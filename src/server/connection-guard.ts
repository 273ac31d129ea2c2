/**
 * Who may hold the listener's sockets. A connection cap alone lets one client keep it full: idle
 * sockets, re-opened as they are closed, leave nothing for anyone else. So the listener admits
 * connections itself:
 * - one client address holds at most `maxConnectionsPerAddress` sockets (a trusted proxy, which
 *   carries everyone's requests, is not counted as one client);
 * - near the cap (90 % of `maxConnections`), a socket with no request in flight that has been idle
 *   `pressureIdleMs` is closed when the next connection arrives;
 * - at the cap, a new connection takes the place of the socket idle the longest, and is refused only
 *   when every socket is busy answering a request.
 * A socket that sent no request yet, or whose headers are still trickling in, counts as idle.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { clientAddressKey, plainAddress, type TrustedProxies } from '../security/index.js';

export interface ConnectionGuardLimits {
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** Near the cap, idle sockets older than this are closed (ms). */
  pressureIdleMs: number;
}

/** Near the cap: from this share of `maxConnections` on, idle sockets are closed quickly. */
export const PRESSURE_SHARE = 0.9;

interface Held {
  socket: Socket;
  address: string | undefined;
  /** Requests being answered on it. */
  busy: number;
  /** When it last became idle (its arrival, or the end of its last response). */
  idleSince: number;
}

export interface ConnectionGuard {
  /** Sockets held now. */
  readonly size: number;
}

/** Install the admission rules on `server` (an http or https server from @hono/node-server). */
export function guardConnections(
  server: Server,
  limits: ConnectionGuardLimits,
  proxies: TrustedProxies,
  now: () => number = () => performance.now(),
): ConnectionGuard {
  const held = new Map<Socket, Held>();
  const perAddress = new Map<string, number>();
  const nearCap = Math.max(1, Math.floor(limits.maxConnections * PRESSURE_SHARE));

  const release = (h: Held) => {
    if (!held.delete(h.socket) || h.address === undefined) return;
    const n = (perAddress.get(h.address) ?? 1) - 1;
    if (n <= 0) perAddress.delete(h.address);
    else perAddress.set(h.address, n);
  };
  const idleOnes = () => [...held.values()].filter((h) => h.busy === 0).sort((a, b) => a.idleSince - b.idleSince);

  // Node's own cap would drop a newcomer before this listener could make room for it.
  server.maxConnections = Infinity;
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress ? plainAddress(socket.remoteAddress) : undefined;
    const address = peer && !proxies.trusts(peer) ? clientAddressKey(peer) : undefined;
    if (address !== undefined && (perAddress.get(address) ?? 0) >= limits.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    if (held.size >= nearCap) {
      const t = now();
      for (const h of idleOnes()) {
        if (t - h.idleSince < limits.pressureIdleMs) break;
        h.socket.destroy();
        release(h);
      }
    }
    if (held.size >= limits.maxConnections) {
      const longest = idleOnes()[0];
      if (!longest) {
        socket.destroy();
        return;
      }
      longest.socket.destroy();
      release(longest);
    }
    const h: Held = { socket, address, busy: 0, idleSince: now() };
    held.set(socket, h);
    if (address !== undefined) perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    socket.once('close', () => release(h));
  });
  server.on('request', (req, res) => {
    // Over TLS the request's socket wraps the TCP socket the listener admitted.
    const raw = (req.socket as Socket & { _parent?: Socket })._parent ?? req.socket;
    const h = held.get(raw);
    if (!h) return;
    h.busy++;
    res.once('close', () => {
      h.busy--;
      h.idleSince = now();
    });
  });
  return {
    get size() {
      return held.size;
    },
  };
}
