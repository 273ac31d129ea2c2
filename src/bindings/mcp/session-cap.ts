/**
 * Who gives way when the MCP door holds as many sessions as it keeps (`maxSessions`): the session
 * idle the longest of the client address holding the most sessions. A few addresses that fill the
 * cap (each under its own per-address cap) then lose their oldest idle sessions to newcomers,
 * instead of every other client being refused until theirs expire.
 */

/** What the choice reads of a session: the address that opened it (absent in-process) and when it was last used. */
export interface CappedSession {
  readonly address: string | undefined;
  readonly lastSeen: number;
  /** Requests being answered right now: a session answering one is counted but never chosen. */
  readonly busy?: number;
}

/**
 * The session to close to make room: of the address with the most sessions (a tie goes to the
 * address whose idlest session has waited longest), the one idle the longest; undefined when there
 * is none. Sessions without an address count as one address. A session answering a request counts
 * toward its address but is not closed under it; an address whose sessions are all busy gives none.
 */
export function sessionToEvict<S extends CappedSession>(sessions: Iterable<S>): S | undefined {
  const byAddress = new Map<string | undefined, { count: number; idlest?: S }>();
  for (const s of sessions) {
    let group = byAddress.get(s.address);
    if (!group) byAddress.set(s.address, (group = { count: 0 }));
    group.count++;
    if (!s.busy && (!group.idlest || s.lastSeen < group.idlest.lastSeen)) group.idlest = s;
  }
  let heaviest: { count: number; idlest: S } | undefined;
  for (const g of byAddress.values()) {
    if (!g.idlest) continue;
    if (
      !heaviest ||
      g.count > heaviest.count ||
      (g.count === heaviest.count && g.idlest.lastSeen < heaviest.idlest.lastSeen)
    )
      heaviest = { count: g.count, idlest: g.idlest };
  }
  return heaviest?.idlest;
}
