/** Input shapes shared by the registry's operations (schemas/registry.json), never stricter than the spec. */
import { z } from 'zod';

const Coordinates = z.object({ lat: z.number(), lng: z.number() });

const RegistryLocation = z.object({
  address: z.string().max(500).optional(),
  coordinates: Coordinates.optional(),
});

const words = (what: string) => z.array(z.string().max(200)).max(50).describe(what);

/** RegistrationRequest: the body of register and update. */
export const registrationFields = {
  profile_url: z
    .string()
    .max(2048)
    .describe('URL of the business profile: /.well-known/usp (standalone) or /.well-known/ucp (ucp_native).'),
  deployment_mode: z
    .enum(['standalone', 'ucp_native'])
    .describe('How the business serves USP; must match the profile.'),
  name: z.string().min(1).max(200).describe('Business name.'),
  description: z.string().max(2000).optional().describe('A line or two for search results.'),
  verticals: words('Service verticals offered, e.g. appointment, group.'),
  categories: words('Business categories for search, e.g. hair, wellness.'),
  location: RegistryLocation.optional().describe(
    'Address and coordinates; required when any service is delivered at the business or hybrid.',
  ),
  timezone: z.string().max(100).describe('IANA time zone, e.g. America/New_York.'),
};

export const RegistrationRequest = z.object(registrationFields);
export type RegistrationInput = z.output<typeof RegistrationRequest>;

const SearchLocation = z.object({
  coordinates: Coordinates.optional(),
  radius_km: z.number().optional().describe('Kilometres from the coordinates.'),
});

const RegistryContext = z.object({
  locale: z.string().max(100).optional(),
  currency: z.string().max(10).optional(),
});

const SearchPagination = z.object({
  cursor: z.string().max(2048).nullable().optional(),
  limit: z.number().int().min(1).optional(),
});

export const RangeMatch = z.enum(['overlap', 'contained', 'contains', 'equals']);

export const searchFields = {
  location: SearchLocation.optional().describe(
    'Centre and radius; virtual-only businesses never match a location filter.',
  ),
  verticals: words('Any of these verticals (OR).').optional(),
  categories: words('Any of these categories (OR).').optional(),
  query: z.string().max(500).optional().describe('Free text; every word must occur.'),
  context: RegistryContext.optional(),
  pagination: SearchPagination.optional(),
};
