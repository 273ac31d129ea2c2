/** Delete a registration (spec 6.6): only whoever proves control of the registered profile; its indexed services go with it. */
import { z } from 'zod';
import { defineRegistryOperation, ok } from '../core/define.js';
import { id } from '../schemas.js';
import { requireControl } from './control.js';
import { loadRegistration } from './get-registration.js';

export const deleteRegistration = defineRegistryOperation({
  name: 'delete_registration',
  tool: 'usp_registry_delete',
  rest: { method: 'DELETE', path: '/registry/businesses/{id}', input: 'none' },
  access: 'privileged_platform',
  capability: 'dev.usp-protocol.discovery.registry',
  mutating: true,
  conditional: false,
  writes: true,
  destructive: true,
  empty: true,
  output: {},
  summary: 'Remove a registration and the services indexed from it.',
  input: z.object({ id: id('The registration id (reg_...).') }),
  async handle(inp, ctx) {
    const row = await loadRegistration(ctx.tx, inp.id);
    requireControl(ctx.caller, row.profile_url);
    await ctx.tx.registry.remove(row.id);
    return ok({});
  },
});
