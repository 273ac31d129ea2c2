/**
 * The slot value slot generation and `findSlot` answer (USP §4.1 TimeSlot before presentation): plain
 * own fields, with `id` and `key` written when read.
 */
import { slotIdHead, slotTag } from './slot-id.js';
import type { SlotCandidate, SlotState } from './slot-query.js';

/** What every slot of one combination shares: its frozen resource list and the parts of its ids and keys. */
export interface ComboParts {
  resourceIds: readonly string[];
  tag: string;
  keyPrefix: string;
  keySuffix: string;
}

/**
 * A slot as generated or found. Its data are own fields, as in a plain object (the resource list is the
 * combination's, frozen); `id` and `key` are written when read (a page of an answer is presented,
 * its other slots never are): the same strings `encodeSlotId` and `slotKey` give for its parts.
 */
export class GeneratedSlot implements SlotCandidate {
  readonly #parts: ComboParts;
  readonly serviceId: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly durationMs: number;
  readonly resourceIds: readonly string[];
  readonly state: SlotState;
  declare locationId?: string;
  declare capacity?: SlotCandidate['capacity'];

  constructor(serviceId: string, parts: ComboParts, startMs: number, durationMs: number, state: SlotState) {
    this.#parts = parts;
    this.serviceId = serviceId;
    this.startMs = startMs;
    this.endMs = startMs + durationMs;
    this.durationMs = durationMs;
    this.resourceIds = parts.resourceIds;
    this.state = state;
  }

  get id(): string {
    return slotIdHead(this.startMs) + this.#parts.tag;
  }

  get key(): string {
    return this.#parts.keyPrefix + this.startMs + this.#parts.keySuffix;
  }
}

/** A combination's shared parts: one frozen copy of its resource list (the combination's own is the plan's), its tag, its key's ends. */
export function comboParts(serviceId: string, resourceIds: readonly string[]): ComboParts {
  return {
    resourceIds: Object.freeze(resourceIds.slice()),
    tag: slotTag(serviceId, resourceIds),
    keyPrefix: `${serviceId}|`,
    keySuffix: `|${resourceIds.join(',')}`,
  };
}
