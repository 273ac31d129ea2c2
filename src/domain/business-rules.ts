/**
 * The protocol's rules for a business definition, beyond the shape of each member: the USP §3.11
 * payment and pricing combinations, capacity for group and reservation services, categories, and
 * the references across the whole file (unique ids, resources and locations that exist, one
 * currency). Pure functions that report each problem with the path of the offending member; the
 * schema in business.ts applies the per-service rules, and the business-file reader (src/server)
 * applies the whole-file rules and reports. The same rules, as far as JSON Schema can say them, are
 * written once more below as data for the emitted schema.
 */

import { calendarSecretIssues } from './calendar-config.js';

export type PathSegment = string | number;

/** Receives one problem: the path of the offending member and what is wrong with it. */
export type IssueSink = (path: PathSegment[], message: string) => void;

export const RESOURCE_TYPES = ['staff', 'room', 'equipment', 'other'] as const;

/** Pricing models whose price is one positive amount. */
const FEE_FIXED_MODELS = new Set(['fixed', 'hourly', 'per_person']);

/** Path used for issues about the whole document (it is not an object, ...). */
const ROOT_PATH = '(root)';

/** `['services', 2, 'policies', 'payment_timing']` → `services[2].policies.payment_timing`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const key = String(seg);
      if (/^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
      else out += `[${JSON.stringify(key)}]`;
    }
  }
  return out || ROOT_PATH;
}

/** What the service rules read of a service (its shape is validated before they run). */
export interface ServiceFacts {
  type: string;
  duration: { undetermined?: true };
  pricing: { model: string; amount?: number; price_range?: unknown; deposit?: { type: string; value: number } };
  policies: { requires_payment: boolean; payment_timing?: string; booking_window?: { slot_interval?: string } };
  capacity?: unknown;
  requirements: readonly unknown[];
  hours?: unknown;
  categories?: readonly CategoryFacts[];
}

export interface CategoryFacts {
  taxonomy: string;
  id?: string;
  name?: string;
  value?: string;
  primary?: boolean;
}

/** Cross-field rules inside one service, including the USP §3.11 payment/pricing matrix. */
export function serviceRules(s: ServiceFacts, issue: IssueSink): void {
  const { pricing, policies, duration } = s;

  if (!policies.requires_payment) {
    if (pricing.model !== 'free')
      issue(['pricing', 'model'], 'must be "free" when policies.requires_payment is false (USP §3.11)');
    if (policies.payment_timing !== undefined)
      issue(['policies', 'payment_timing'], 'must be absent when requires_payment is false (USP §3.11)');
  } else {
    if (pricing.model === 'free')
      issue(['pricing', 'model'], 'must not be "free" when policies.requires_payment is true (USP §3.11)');
    if (policies.payment_timing === undefined)
      issue(['policies', 'payment_timing'], 'is required when requires_payment is true (USP §3.11)');
  }
  if (policies.payment_timing === 'deposit_required' && pricing.deposit === undefined) {
    issue(['pricing', 'deposit'], 'is required when payment_timing is "deposit_required" (USP §3.11)');
  }
  if (pricing.model === 'free') {
    if (pricing.amount !== undefined)
      issue(['pricing', 'amount'], 'must be absent for the "free" pricing model (USP §3.11)');
    if (pricing.price_range !== undefined)
      issue(['pricing', 'price_range'], 'must be absent for the "free" pricing model (USP §3.8)');
  }
  if (FEE_FIXED_MODELS.has(pricing.model) && !(pricing.amount !== undefined && pricing.amount > 0)) {
    issue(
      ['pricing', 'amount'],
      `must be present and greater than zero for the "${pricing.model}" pricing model (USP §3.11)`,
    );
  }
  if (duration.undetermined && pricing.model === 'hourly') {
    issue(['pricing', 'model'], 'cannot be "hourly" when duration.undetermined is true (USP §3.11)');
  }
  // The booking window's members are optional (spec-next 3.9); a slot of no stated length needs one.
  if (duration.undetermined && !policies.booking_window?.slot_interval) {
    issue(
      ['policies', 'booking_window', 'slot_interval'],
      'is required when duration.undetermined is true: it is the length of each slot',
    );
  }
  const deposit = pricing.deposit;
  if (deposit?.type === 'fixed' && pricing.amount !== undefined && deposit.value > pricing.amount) {
    issue(['pricing', 'deposit', 'value'], `must not exceed pricing.amount (${pricing.amount})`);
  }
  if ((s.type === 'group' || s.type === 'reservation') && s.capacity === undefined) {
    issue(['capacity'], `is required for ${s.type} services (capacity.max >= 1)`);
  }
  if (s.requirements.length === 0 && s.hours === undefined) {
    issue(['hours'], 'is required when the service has no requirements (it then is its own resource)');
  }
  categoryRules(s.categories ?? [], issue);
}

function categoryRules(categories: readonly CategoryFacts[], issue: IssueSink): void {
  let primary = -1;
  categories.forEach((c, i) => {
    const path: PathSegment[] = ['categories', i];
    if (c.id === undefined && c.name === undefined && c.value === undefined) {
      issue(path, 'needs at least one of id, name or value');
    }
    if (c.taxonomy !== 'merchant' && c.value === undefined) {
      issue([...path, 'value'], `is required for the non-merchant taxonomy "${c.taxonomy}"`);
    }
    if (c.primary === true) {
      if (primary >= 0)
        issue([...path, 'primary'], `only one category may be primary (categories[${primary}] already is)`);
      else primary = i;
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Whole-file rules

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function records(v: unknown): Array<[number, Record<string, unknown>]> {
  if (!Array.isArray(v)) return [];
  return v.flatMap((item, i) => (isRecord(item) ? [[i, item] as [number, Record<string, unknown>]] : []));
}

function isResourceType(v: string): boolean {
  return (RESOURCE_TYPES as readonly string[]).includes(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * Rules across the whole file, run on the raw input so that they are reported together with shape
 * errors: unique ids and handles, references between services, resources and locations, and one
 * currency for the business and its services.
 */
export function wholeFileRules(input: unknown, add: IssueSink): void {
  if (!isRecord(input)) return;
  const business = isRecord(input.business) ? input.business : {};
  const locationsKnown = Array.isArray(business.locations);
  const currency = str(business.currency);

  /** Flags repeated ids in one list; returns the set of ids. */
  const uniqueIds = (list: Array<[number, Record<string, unknown>]>, base: PathSegment[], what: string, key = 'id') => {
    const first = new Map<string, number>();
    for (const [i, item] of list) {
      const id = str(item[key]);
      if (id === undefined) continue;
      const prev = first.get(id);
      if (prev !== undefined)
        add([...base, i, key], `duplicate ${what} "${id}" (also at ${formatPath([...base, prev])})`);
      else first.set(id, i);
    }
    return first;
  };

  const locations = uniqueIds(records(business.locations), ['business', 'locations'], 'location id');
  const resourceList = records(input.resources);
  // A calendar's secret is this business's (its prefix names the business), never another's.
  const businessId = str(business.id);
  if (businessId !== undefined) calendarSecretIssues(businessId, resourceList, add);
  uniqueIds(resourceList, ['resources'], 'resource id');
  const resourceTypes = new Map<string, string>();
  for (const [i, r] of resourceList) {
    const id = str(r.id);
    if (id !== undefined && !resourceTypes.has(id)) resourceTypes.set(id, str(r.type) ?? '');
    // (a resource whose own type is invalid is reported once, at resources[i].type)
    const loc = str(r.location_id);
    if (loc !== undefined && locationsKnown && !locations.has(loc))
      add(['resources', i, 'location_id'], `names no location in business.locations ("${loc}")`);
  }

  const services = records(input.services);
  uniqueIds(services, ['services'], 'service id');
  uniqueIds(services, ['services'], 'service handle', 'handle');
  for (const [i, s] of services) {
    const pricing = isRecord(s.pricing) ? s.pricing : {};
    const svcCurrency = str(pricing.currency);
    if (svcCurrency !== undefined && currency !== undefined && svcCurrency !== currency) {
      add(
        ['services', i, 'pricing', 'currency'],
        `must equal the business currency "${currency}" (got "${svcCurrency}")`,
      );
    }
    if (Array.isArray(s.location_ids) && locationsKnown) {
      s.location_ids.forEach((loc, j) => {
        if (typeof loc === 'string' && !locations.has(loc))
          add(['services', i, 'location_ids', j], `names no location in business.locations ("${loc}")`);
      });
    }
    if (!Array.isArray(input.resources)) continue;
    for (const [k, req] of records(s.requirements)) {
      const wanted = str(req.type);
      if (!Array.isArray(req.resource_ids)) continue;
      req.resource_ids.forEach((rid, m) => {
        if (typeof rid !== 'string') return;
        const path = ['services', i, 'requirements', k, 'resource_ids', m];
        const actual = resourceTypes.get(rid);
        if (actual === undefined) add(path, `names no resource ("${rid}")`);
        else if (wanted !== undefined && actual !== wanted && isResourceType(actual))
          add(path, `resource "${rid}" is of type "${actual}", the requirement needs "${wanted}"`);
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The same rules as JSON Schema (for the emitted business-file schema)

type JsonObject = Record<string, unknown>;

const has = (...names: string[]): JsonObject => ({ type: 'object', required: names });
const member = (name: string, schema: JsonObject): JsonObject => ({
  type: 'object',
  properties: { [name]: schema },
  required: [name],
});
const props = (properties: JsonObject, extra: JsonObject = {}): JsonObject => ({
  type: 'object',
  properties,
  ...extra,
});

const policy = (name: string, schema: JsonObject) => member('policies', member(name, schema));
const price = (name: string, schema: JsonObject) => member('pricing', member(name, schema));
const model = (schema: JsonObject) => props({ pricing: props({ model: schema }) });

/** Exactly one of fixed, range or undetermined (the rule DurationSchema checks in business.ts), for the Duration definition. */
export const DURATION_RULES_JSON_SCHEMA: JsonObject[] = [has('fixed'), has('range'), has('undetermined')];

/** The payment, pricing, capacity and hours rules of `serviceRules`, as JSON Schema conditionals for the Service definition. */
export const SERVICE_RULES_JSON_SCHEMA: JsonObject[] = [
  {
    if: policy('requires_payment', { const: false }),
    then: props({ policies: { not: has('payment_timing') }, pricing: props({ model: { const: 'free' } }) }),
  },
  {
    if: policy('requires_payment', { const: true }),
    then: props({ policies: has('payment_timing'), pricing: props({ model: { not: { const: 'free' } } }) }),
  },
  { if: policy('payment_timing', { const: 'deposit_required' }), then: props({ pricing: has('deposit') }) },
  {
    if: price('model', { const: 'free' }),
    then: props({ pricing: { not: { anyOf: [has('amount'), has('price_range')] } } }),
  },
  {
    if: price('model', { enum: ['fixed', 'hourly', 'per_person'] }),
    then: props({ pricing: props({ amount: { type: 'integer', exclusiveMinimum: 0 } }, { required: ['amount'] }) }),
  },
  { if: member('duration', has('undetermined')), then: model({ not: { const: 'hourly' } }) },
  { if: member('duration', has('undetermined')), then: policy('booking_window', has('slot_interval')) },
  { if: member('type', { enum: ['group', 'reservation'] }), then: has('capacity') },
  { if: member('requirements', { type: 'array', maxItems: 0 }), then: has('hours') },
];
