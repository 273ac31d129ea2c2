/**
 * How a service presents itself in the catalog: its categories, description, links, media, rating
 * and per-locale overrides. Part of the business file's schema (business.ts composes it).
 */
import { z } from 'zod';
import { doc, LOCALE_RE, nonEmpty, httpUrl } from './business-fields.js';

export const CategorySchema = doc(
  z.looseObject({
    taxonomy: doc(nonEmpty(), 'Labeling system, e.g. "merchant" or an external taxonomy.'),
    id: z.string().optional(),
    name: z.string().optional(),
    parent_id: z.string().optional(),
    value: doc(z.string(), 'Taxonomy-native code or path; required outside the merchant taxonomy.').optional(),
    primary: z.boolean().optional(),
  }),
  { id: 'ServiceCategory', description: 'A category label within one taxonomy.' },
);

export const DescriptionSchema = doc(
  z.union([z.string(), z.strictObject({ plain: z.string(), markdown: z.string().optional(), html: z.string().optional() })], {
    error: 'must be a string or an object with a "plain" member',
  }),
  { id: 'Description', description: 'Plain-text description, or { plain, markdown?, html? }.' },
);

export const LinkSchema = doc(z.strictObject({ type: nonEmpty(), url: httpUrl('Address of the page.'), title: z.string().optional() }), {
  id: 'Link',
  description: 'A typed link to a policy or information page.',
});

export const MediaSchema = doc(
  z.looseObject({
    type: doc(nonEmpty(), 'Media format, e.g. "image" or "video".'),
    url: httpUrl('Address of the media.'),
    alt_text: z.string().optional(),
    role: z.enum(['hero', 'gallery', 'thumbnail']).optional(),
    width: z.number().int().min(1).optional(),
    height: z.number().int().min(1).optional(),
  }),
  { id: 'Media', description: 'An image or video of the service.' },
);

export const RatingSchema = doc(
  z
    .strictObject({
      value: z.number().min(0),
      scale_max: z.number().min(1),
      scale_min: z.number().min(0).optional(),
      count: z.number().int().min(0).optional(),
    })
    .superRefine((r, ctx) => {
      const min = r.scale_min ?? 1;
      if (r.value < min || r.value > r.scale_max) ctx.addIssue({ code: 'custom', path: ['value'], message: `must lie between ${min} and ${r.scale_max}` });
    }),
  { id: 'Rating', description: 'Aggregate rating of the service.' },
);

const LOCALIZED_KEYS = ['name', 'description', 'category_name', 'channel_instructions'];

export const LocalizedSchema = doc(
  z.record(
    z.string().refine((k) => LOCALIZED_KEYS.includes(k), `must be one of ${LOCALIZED_KEYS.join(', ')}`),
    z.record(z.string().regex(LOCALE_RE, 'must be a BCP 47 language tag such as "es" or "zh-Hant"'), z.string()),
  ),
  { id: 'LocalizedFields', description: 'Per-locale overrides of name, description, category_name and channel_instructions.' },
);
