/**
 * Money as people read and type it. Amounts are stored in integer minor units of the currency
 * (spec 3.8); how many digits the minor unit has is the currency's own exponent (ISO 4217, as Intl
 * knows it: USD 2, JPY 0, KWD 3). A currency Intl does not know is taken to have 2.
 */

const MONEY_FORMAT_LIMIT = 100;
/** Amounts written per format and kept: prices repeat (every slot of a service has the same one). */
const MONEY_TEXT_LIMIT = 1000;

/**
 * One currency in one locale: Intl's formatter, the digits of the minor unit (asked of ICU once:
 * `resolvedOptions()` builds a new object on every call) and the amounts already written with it.
 */
interface MoneyFormat {
  format: Intl.NumberFormat;
  digits: number;
  texts: Map<number, string>;
}

const moneyFormats = new Map<string, MoneyFormat>();

function numberFormat(locale: string, currency: string): MoneyFormat | undefined {
  const key = `${locale}|${currency}`;
  let format = moneyFormats.get(key);
  if (format === undefined) {
    let intl: Intl.NumberFormat;
    try {
      intl = new Intl.NumberFormat(locale, { style: 'currency', currency });
    } catch {
      return undefined;
    }
    if (moneyFormats.size >= MONEY_FORMAT_LIMIT) moneyFormats.clear();
    format = { format: intl, digits: intl.resolvedOptions().maximumFractionDigits ?? 2, texts: new Map() };
    moneyFormats.set(key, format);
  }
  return format;
}

/** The digits of `currency`'s minor unit (USD 2, JPY 0, KWD 3); 2 for a code Intl does not know. */
export function currencyDigits(currency: string): number {
  return numberFormat('en-US', currency)?.digits ?? 2;
}

/** An amount in minor units as the plain major-unit number a form field holds: 6500 USD is "65.00", 700 JPY is "700". */
export function majorAmount(amount: number, currency: string): string {
  const digits = currencyDigits(currency);
  const sign = amount < 0 ? '-' : '';
  const text = String(Math.abs(Math.trunc(amount))).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/**
 * An amount in minor units as people read it: "$110.00", "¥700" (en-US unless a locale is given,
 * e.g. the buyer's language on the pages). A currency Intl does not know is written "110.00 XYZ".
 */
export function formatMoney(amount: number, currency: string, locale = 'en-US'): string {
  const format = numberFormat(locale, currency);
  if (!format) return `${majorAmount(amount, currency)} ${currency}`;
  // Kept for whole minor units only (-0 would share 0's entry, and Intl writes it "-$0.00").
  const keep = Number.isInteger(amount) && !Object.is(amount, -0);
  let text = keep ? format.texts.get(amount) : undefined;
  if (text === undefined) {
    text = format.format.format(amount / 10 ** format.digits);
    if (keep) {
      if (format.texts.size >= MONEY_TEXT_LIMIT) format.texts.clear();
      format.texts.set(amount, text);
    }
  }
  return text;
}

/** What a typed amount means: minor units, or why it was refused (in words, naming what was typed). */
export type ParsedMoney = { ok: true; amount: number } | { ok: false; message: string };

/**
 * An amount typed in the currency's major unit, as minor units: for USD "70", "70.00", "$70.00",
 * "70 USD" and "1,200.50" are read; "70.001" (more decimals than the currency has), "1,2" or
 * "70,00" (a comma that is not a thousands separator), a negative or anything else is refused in
 * words. Thousands separators are read only as groups of three digits with a point for decimals.
 */
export function parseMoney(typed: string, currency: string): ParsedMoney {
  const digits = currencyDigits(currency);
  const symbol = numberFormat('en-US', currency)
    ?.format.formatToParts(0)
    .find((p) => p.type === 'currency')?.value;
  let t = typed.trim();
  const example = majorAmount(6500 * 10 ** Math.max(0, digits - 2), currency);
  const refuse = (why: string): ParsedMoney => ({
    ok: false,
    message: `“${typed.trim()}” is not an amount in ${currency}: ${why} For example ${example}.`,
  });
  if (t.toUpperCase().startsWith(currency.toUpperCase())) t = t.slice(currency.length).trim();
  else if (t.toUpperCase().endsWith(currency.toUpperCase())) t = t.slice(0, -currency.length).trim();
  if (symbol && t.startsWith(symbol)) t = t.slice(symbol.length).trim();
  if (t.startsWith('-') || t.startsWith('−')) return refuse('an amount cannot be negative.');
  if (t.includes(',')) {
    if (!/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(t)) {
      return refuse('a comma is read only between thousands (1,200.50); write the decimals after a point.');
    }
    t = t.replaceAll(',', '');
  }
  const m = /^(\d+)(?:\.(\d*))?$/.exec(t);
  if (!m) return refuse('write digits, with a point before the decimals.');
  const fraction = m[2] ?? '';
  if (fraction.length > digits) {
    return refuse(
      digits === 0
        ? `${currency} has no smaller unit, so write a whole amount.`
        : `${currency} has ${digits} decimal places, and ${fraction.length} were typed.`,
    );
  }
  const amount = Number(m[1] + fraction.padEnd(digits, '0'));
  if (!Number.isSafeInteger(amount)) return refuse('that is too large.');
  return { ok: true, amount };
}
