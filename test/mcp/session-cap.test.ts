/**
 * Who gives way at the MCP session cap (the rule behind test/mcp/session-limits.test.ts, which
 * shows it through the door): the longest-idle session of the address holding the most, never one
 * answering a request.
 */
import { describe, expect, test } from 'vitest';
import { sessionToEvict } from '../../src/bindings/mcp/session-cap.js';

const s = (id: string, address: string | undefined, lastSeen: number, busy = 0) => ({ id, address, lastSeen, busy });

describe('the session that gives way at the cap', () => {
  test('the idlest session of the address holding the most, not the idlest session overall', () => {
    const all = [s('a1', 'A', 50), s('a2', 'A', 40), s('a3', 'A', 60), s('b1', 'B', 10), s('b2', 'B', 20)];
    expect(sessionToEvict(all)?.id).toBe('a2');
  });

  test('between two addresses holding as many, the one whose idlest session waited longest', () => {
    expect(sessionToEvict([s('a1', 'A', 30), s('a2', 'A', 40), s('b1', 'B', 20), s('b2', 'B', 50)])?.id).toBe('b1');
  });

  test('a session answering a request is never chosen; an address whose sessions are all busy gives none', () => {
    expect(sessionToEvict([s('a1', 'A', 10, 1), s('a2', 'A', 20), s('a3', 'A', 30, 2), s('b1', 'B', 5)])?.id).toBe(
      'a2',
    );
    expect(sessionToEvict([s('a1', 'A', 10, 1), s('a2', 'A', 20, 1), s('b1', 'B', 50)])?.id).toBe('b1');
    expect(sessionToEvict([s('a1', 'A', 10, 1)])).toBeUndefined();
    expect(sessionToEvict([])).toBeUndefined();
  });

  test('sessions without an address count as one address', () => {
    expect(sessionToEvict([s('x1', undefined, 30), s('x2', undefined, 20), s('a1', 'A', 10)])?.id).toBe('x2');
  });
});
