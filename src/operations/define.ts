/**
 * An operation is defined once, here, and both doors are generated from its row: name, MCP tool
 * name, REST method and path, access tier, whether it changes state (idempotency) and accepts a
 * precondition (conditional write), its input schema and its handler.
 */
import type { z } from 'zod';
import type { Message } from '../domain/index.js';
import type { OperationContext } from './runtime.js';

export type AccessTier = 'public' | 'privileged_platform' | 'privileged_scoped' | 'business_only';

export type CapabilityKey =
  | 'dev.usp-protocol.services.catalog'
  | 'dev.usp-protocol.services.catalog.subscriptions'
  | 'dev.usp-protocol.services.availability'
  | 'dev.usp-protocol.services.bookings'
  | 'dev.usp-protocol.services.waitlist';

export interface OperationResult {
  /** Members of the response beside `usp` and `messages` (e.g. `{ booking }`). */
  data: Record<string, unknown>;
  messages?: Message[];
  /** 201 for a creation; business outcomes always answer 200. */
  status?: 200 | 201;
}

export interface RestRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path template with `{param}` segments, as in the spec's OpenAPI. */
  path: string;
  /** Where the non-path input comes from. */
  input: 'body' | 'query' | 'none';
}

export interface OperationDef<S extends z.ZodType = z.ZodType> {
  /** Stable name, verb-noun (e.g. `create_booking`). */
  name: string;
  /** MCP tool name (spec 9.2.1); absent for REST-only operations. */
  tool?: string;
  rest: RestRoute;
  access: AccessTier;
  capability: CapabilityKey;
  /** Changes state: idempotency keys are honoured and results stored for 24 h. */
  mutating: boolean;
  /** Accepts If-Match / _meta.usp.if_match (spec 5.6). */
  conditional: boolean;
  /** Needs a write transaction even when not mutating from the caller's view (lazy expiry). */
  writes: boolean;
  /** The existing resource a scoped operation addresses (per-resource authorization, credential scope). */
  resource?: { kind: 'booking' | 'hold' | 'waitlist_entry' | 'subscription'; key: string };
  /** One line for the OpenAPI summary. */
  summary: string;
  input: S;
  handle(input: z.output<S>, ctx: OperationContext): Promise<OperationResult>;
}

export function defineOperation<S extends z.ZodType>(def: OperationDef<S>): OperationDef<S> {
  return def;
}

export function ok(data: Record<string, unknown>, status: 200 | 201 = 200): OperationResult {
  return { data, status };
}

/** A business outcome: HTTP 200 / MCP result with the message, and whatever data still applies. */
export function outcome(message: Message, data: Record<string, unknown> = {}): OperationResult {
  return { data, messages: [message], status: 200 };
}
