/**
 * The client's table of the protocol's operations says what the server's operations table says of
 * each: the REST route, the MCP tool, whether it writes, whether it is conditional, its capability
 * and access. A row changed on one side only fails here.
 */
import { describe, expect, it } from 'vitest';
import { CLIENT_OPERATIONS } from '../../src/client/index.js';
import { OPERATIONS } from '../../src/operations/index.js';

describe("the client's operations match the server's operations table", () => {
  for (const [name, op] of Object.entries(CLIENT_OPERATIONS)) {
    it(`${name}: route, tool, write, condition, capability and access`, () => {
      const row = OPERATIONS.find((o) => o.name === name);
      expect(row, `${name} is not in the server's table`).toBeDefined();
      expect({
        method: op.method,
        path: op.path,
        tool: op.tool,
        input: op.input,
        mutating: op.mutating,
        conditional: op.conditional,
        capability: op.capability,
      }).toEqual({
        method: row!.rest.method,
        path: row!.rest.path,
        tool: row!.tool,
        input: row!.rest.input,
        mutating: row!.mutating,
        conditional: row!.conditional,
        capability: row!.capability,
      });
      expect(op.privileged).toBe(row!.access !== 'public');
      expect('scoped' in op).toBe(row!.access === 'privileged_scoped');
    });
  }
});
