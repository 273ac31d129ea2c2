/**
 * The registry's tool copy, for a model: a registry answers "who offers this, where, for how much"
 * from snapshots. It never books; the next step is always the business's own door.
 */
export const REGISTRY_TOOL_TITLES: Record<string, string> = {
  usp_registry_search_services: 'Find services across businesses',
  usp_registry_search_business: 'Find businesses',
  usp_registry_get: 'Read a registration',
  usp_registry_register: 'Register a business',
  usp_registry_update: 'Update a registration',
  usp_registry_delete: 'Remove a registration',
};

const NEXT =
  "Results are snapshots (see last_indexed_at), not the business's word: before offering a time or a price, fetch the business's profile at business.profile_url, then use the REST or MCP endpoint it names (usp_services_get, usp_availability_query, then hold and book there).";

export const REGISTRY_TOOL_DESCRIPTIONS: Record<string, string> = {
  usp_registry_search_services:
    'Find bookable services across every registered business by place (location.coordinates + radius_km), category, vertical (appointment, group, ...), price (price_range in minor units, e.g. 6000 = $60.00, with its currency; never converted) and duration (duration_range in minutes). Give at least one filter; words in query must all occur. ' +
    'Online-only services never match a location filter. An empty list means no match. Page with pagination.cursor. ' +
    NEXT,
  usp_registry_search_business:
    'Find registered businesses by place (location.coordinates + radius_km), vertical, category, words (query) or deployment_mode. Give at least one filter. Use it when the person names a kind of business rather than a service. ' +
    NEXT,
  usp_registry_get:
    "Read one registration by id (reg_...): the business's name, profile_url, location and categories. " + NEXT,
  usp_registry_register:
    'For a business, not for shoppers: list a business in this registry. Present its profile_url as your profile (_meta.usp.profile) and sign the request with a key that profile publishes; the registry fetches the profile and the catalog before accepting.',
  usp_registry_update:
    'For a business, not for shoppers: change a registration (same proof as registering); the profile and catalog are fetched again.',
  usp_registry_delete:
    'For a business, not for shoppers: remove a registration and the services indexed from it (same proof as registering).',
};

export const REGISTRY_INSTRUCTIONS = `This server is a discovery registry of the Universal Scheduling Protocol: it knows which businesses offer which services, where, and roughly at what price. It cannot book.
To help someone find and book: call usp_registry_search_services with what they asked (place as coordinates and a radius in km, a category or words, a price range with its currency, a duration). Pick a result, then go to that business: fetch business.profile_url, connect to the endpoint it names, and check the service, its availability and its price there before holding or booking. Say that prices and availability come from the business, not from the registry.`;
