/** Get a registration (spec 6.4): public; an unknown id is 404. */
import { z } from 'zod';
import type { RegistryBusinessRow, Tx } from '../../store/index.js';
import { defineRegistryOperation, ok } from '../core/define.js';
import { ProtocolError } from '../core/errors.js';
import { id, Out } from '../schemas.js';
import { presentEntry } from './indexing.js';

export async function loadRegistration(tx: Tx, regId: string): Promise<RegistryBusinessRow> {
  const row = await tx.registry.get(regId);
  if (!row)
    throw new ProtocolError('not_found', `No registration ${JSON.stringify(regId).slice(0, 200)} in this registry.`, {
      detailCode: 'registration_not_found',
    });
  return row;
}

export const getRegistration = defineRegistryOperation({
  name: 'get_registration',
  tool: 'usp_registry_get',
  rest: { method: 'GET', path: '/registry/businesses/{id}', input: 'none' },
  access: 'public',
  capability: 'dev.usp-protocol.discovery.registry',
  mutating: false,
  conditional: false,
  writes: false,
  output: { registration: Out.object },
  summary: 'Get a registration by id.',
  input: z.object({ id: id('The registration id (reg_...).') }),
  async handle(inp, ctx) {
    return ok({ registration: presentEntry(await loadRegistration(ctx.tx, inp.id)) });
  },
});
