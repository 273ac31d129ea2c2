/** The language files, and the choice among them: the reader's language, else the business's, else English. */
import { en } from './en.js';
import { es } from './es.js';
import type { Words } from './words.js';

const LANGUAGES: Record<string, Words> = { en, es };

export function wordsFor(...tags: Array<string | null | undefined>): { lang: string; words: Words } {
  for (const t of tags) {
    const lang = t?.toLowerCase().split('-')[0];
    if (lang && LANGUAGES[lang]) return { lang, words: LANGUAGES[lang] };
  }
  return { lang: 'en', words: en };
}

export type { BookingKind, Facts, Words } from './words.js';
