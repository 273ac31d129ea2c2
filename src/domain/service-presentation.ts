/**
 * How a service presents itself in the catalog: its categories, description, links, media, rating
 * and per-locale overrides. Part of the business file's schema (business.ts composes it).
 */
import { z } from 'zod';
import { doc, freeText, LOCALE_RE, LONG_TEXT_MAX, nameText, httpUrl } from './business-fields.js';

export const CategorySchema = doc(
  z.looseObject({
    taxonomy: doc(nameText(), 'Labeling system, e.g. "merchant" or an external taxonomy.'),
    id: freeText(200).optional(),
    name: nameText().optional(),
    parent_id: freeText(200).optional(),
    value: doc(freeText(), 'Taxonomy-native code or path; required outside the merchant taxonomy.').optional(),
    primary: z.boolean().optional(),
  }),
  { id: 'ServiceCategory', description: 'A category label within one taxonomy.' },
);

export const DescriptionSchema = doc(
  z.union(
    [
      freeText(LONG_TEXT_MAX),
      z.strictObject({
        plain: freeText(LONG_TEXT_MAX),
        markdown: freeText(LONG_TEXT_MAX).optional(),
        html: freeText(LONG_TEXT_MAX).optional(),
      }),
    ],
    {
      error: 'must be a string or an object with a "plain" member',
    },
  ),
  { id: 'Description', description: 'Plain-text description, or { plain, markdown?, html? }.' },
);

export const LinkSchema = doc(
  z.strictObject({ type: nameText(), url: httpUrl('Address of the page.'), title: freeText(200).optional() }),
  {
    id: 'Link',
    description: 'A typed link to a policy or information page.',
  },
);

export const MediaSchema = doc(
  z.looseObject({
    type: doc(nameText(), 'Media format, e.g. "image" or "video".'),
    url: httpUrl('Address of the media.'),
    alt_text: freeText().optional(),
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
      if (r.value < min || r.value > r.scale_max)
        ctx.addIssue({ code: 'custom', path: ['value'], message: `must lie between ${min} and ${r.scale_max}` });
    }),
  { id: 'Rating', description: 'Aggregate rating of the service.' },
);

const LOCALIZED_KEYS = ['name', 'description', 'category_name', 'channel_instructions'];

export const LocalizedSchema = doc(
  z.record(
    z.string().refine((k) => LOCALIZED_KEYS.includes(k), `must be one of ${LOCALIZED_KEYS.join(', ')}`),
    z.record(
      z.string().regex(LOCALE_RE, 'must be a BCP 47 language tag such as "es" or "zh-Hant"'),
      freeText(LONG_TEXT_MAX),
    ),
  ),
  {
    id: 'LocalizedFields',
    description: 'Per-locale overrides of name, description, category_name and channel_instructions.',
  },
);
