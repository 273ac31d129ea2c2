/**
 * The shape shared by the admin operations that create and change the objects of the business
 * definition (services, resources, locations): the body is the object as the business file writes
 * it (a create) or an RFC 7396 merge patch of it (a change), plus `force`; every check is the
 * business file's, run by `editDefinition` on the whole definition.
 */
import { z } from 'zod';
import { uniqueIdFrom } from '../../domain/index.js';
import { ok, type DashboardAction, type OperationDef, type OperationResult } from '../core/define.js';
import type { OperationContext } from '../core/context.js';
import { Out } from '../schemas.js';
import { editDefinition, type DefinitionChange } from './definition-edit.js';
import { mergePatch } from './definition-document.js';

type Json = Record<string, unknown>;

const FORCE = z
  .boolean()
  .optional()
  .describe('Store the change even when it strands live bookings: they stay as booked and are named in a warning.');

const WHAT = { services: 'service', resources: 'resource', locations: 'location' } as const;
const PREFIX = { services: 'svc', resources: 'res', locations: 'loc' } as const;

/** What an edit answers: the object as stored, under its kind's name, and the warnings of a forced change. */
async function run(ctx: OperationContext, change: DefinitionChange): Promise<OperationResult> {
  const edit = await editDefinition(ctx, change);
  return { ...ok({ [WHAT[change.list]]: edit.object }), messages: edit.messages };
}

/** The create row of one kind: the body is the new object (its `id` included). */
export function createRow(
  list: DefinitionChange['list'],
  row: { name: string; path: string; summary: string; dashboard: DashboardAction },
) {
  const what = WHAT[list];
  return {
    name: row.name,
    rest: { method: 'POST', path: row.path, input: 'body' },
    access: 'business_only',
    capability: 'dev.usp-protocol.services.catalog',
    mutating: true,
    conditional: false,
    writes: true,
    creates: true,
    dashboard: row.dashboard,
    output: { [what]: Out.object },
    summary: row.summary,
    input: z.looseObject({
      id: z
        .string()
        .min(1)
        .max(128)
        .optional()
        .describe(
          `The new ${what}'s id, unique among the ${list}; when absent it is made from the name (\`${PREFIX[list]}_deep_tissue_massage\`, with \`_2\` when taken).`,
        ),
      force: FORCE,
    }),
    async handle(inp: Json & { force?: boolean }, ctx: OperationContext) {
      // A duplicate id is the business file's own issue ("duplicate service id"), reported on `id`.
      const { force, ...object } = inp;
      return run(ctx, {
        list,
        force,
        apply: (_current, siblings) =>
          object.id === undefined
            ? {
                id: uniqueIdFrom(
                  PREFIX[list],
                  typeof object.name === 'string' ? object.name : what,
                  siblings.map((o) => o.id),
                ),
                ...Object.fromEntries(Object.entries(object).filter(([k]) => k !== 'id')),
              }
            : object,
      });
    },
  } satisfies Omit<OperationDef, 'input' | 'handle'> & {
    input: z.ZodType;
    handle: (i: any, c: OperationContext) => Promise<OperationResult>;
  };
}

/** The change row of one kind: the body is a merge patch of the object named in the path. */
export function updateRow(
  list: DefinitionChange['list'],
  row: {
    name: string;
    path: string;
    summary: string;
    dashboard: DashboardAction;
    patch?: (current: Json, inp: Json) => Json;
  },
) {
  const what = WHAT[list];
  const key = `${what}_id`;
  return {
    name: row.name,
    rest: { method: row.patch ? 'POST' : 'PATCH', path: row.path, input: row.patch ? 'none' : 'body' },
    access: 'business_only',
    capability: 'dev.usp-protocol.services.catalog',
    mutating: true,
    conditional: false,
    writes: true,
    dashboard: row.dashboard,
    output: { [what]: Out.object },
    summary: row.summary,
    input: z.looseObject({ [key]: z.string().min(1).max(128).describe(`The ${what} to change.`), force: FORCE }),
    async handle(inp: Json & { force?: boolean }, ctx: OperationContext) {
      const { force, [key]: id, ...patch } = inp;
      const apply = (current: Json | undefined) =>
        row.patch ? row.patch(current!, patch) : (mergePatch(current, patch) as Json);
      return run(ctx, { list, id: String(id), force, apply });
    },
  } satisfies Omit<OperationDef, 'input' | 'handle'> & {
    input: z.ZodType;
    handle: (i: any, c: OperationContext) => Promise<OperationResult>;
  };
}
