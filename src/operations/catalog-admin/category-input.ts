import { z } from 'zod';

/** The members every category row takes: which taxonomy (the business's own by default) and which services. */
export const TAXONOMY = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe('The taxonomy of the category; default "merchant", the business\'s own.');
export const SERVICE_IDS = z
  .array(z.string().min(1).max(128))
  .max(1000)
  .describe('The services that carry the category.');
export const FORCE = z
  .boolean()
  .optional()
  .describe('Store the change even when it strands live bookings: they stay as booked and are named in a warning.');
