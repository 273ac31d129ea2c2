/**
 * What the buyer's pages share: their style sheet (served from our own origin), the page shell
 * with the web kit's strict policy, the reader's language, and times and money in words.
 */
import { formatMoney, negotiateLocale } from '../../operations/index.js';
import { documentShell, htmlResponse, type Html } from '../../web/index.js';

/** Served from our own origin so the policy can forbid inline styles too. */
export const CSS = `*{box-sizing:border-box}body{font:17px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d1d1f;background:#f4f4f6}
main{max-width:34rem;margin:0 auto;padding:1rem}
.card{background:#fff;border-radius:12px;padding:1rem 1.1rem;margin:0 0 1rem;box-shadow:0 1px 2px rgba(0,0,0,.08)}
.biz{font-size:.95rem;color:#4a4a4f;margin:0}h1{font-size:1.45rem;line-height:1.25;margin:.2rem 0 .6rem}
h2{font-size:1.05rem;margin:0 0 .5rem}
.state{display:inline-block;font-weight:600;border-radius:999px;padding:.2rem .8rem;margin:0 0 .6rem}
.ok{background:#e3f5e8;color:#0b5a24}.wait{background:#fff3d6;color:#6b4400}.bad{background:#fde4e4;color:#8a1414}
dl{margin:0}dt{font-size:.85rem;color:#4a4a4f;margin-top:.6rem}dd{margin:0}
table{width:100%;border-collapse:collapse}td{padding:.25rem 0}td:last-child{text-align:right;font-variant-numeric:tabular-nums}
tr.total td{border-top:1px solid #ddd;font-weight:600}
ul{margin:0;padding-left:1.2rem}li{margin:.2rem 0}
.due{font-size:1.6rem;font-weight:700;margin:.2rem 0}
form{display:flex;gap:.6rem;flex-wrap:wrap;margin:.8rem 0 0}
button,.button{font:inherit;font-weight:600;line-height:1.25;border-radius:10px;padding:.75rem 1.2rem;border:2px solid #1a4fd6;min-height:48px;cursor:pointer;text-decoration:none;display:inline-flex;align-items:center;justify-content:center;text-align:center}
.primary{background:#1a4fd6;color:#fff;flex:1 1 12rem}.secondary{background:#fff;color:#1a4fd6}form.confirm .secondary{flex:1 1 12rem}
.deadlines{margin:.4rem 0 0}
fieldset.day{border:1px solid #ddd;border-radius:10px;margin:0 0 .8rem;padding:.4rem .8rem .6rem;width:100%;display:flex;flex-wrap:wrap;gap:.4rem}
legend{font-weight:600;padding:0 .3rem}.slot{display:inline-flex;align-items:center;gap:.3rem;min-height:44px;padding:0 .6rem;border:1px solid #ccc;border-radius:8px}
.actions{display:flex;flex-wrap:wrap;gap:.6rem}
a{color:#1a4fd6}.note{color:#4a4a4f;font-size:.9rem}
@media (min-width:48rem){main{padding:2.5rem 1rem}h1{font-size:1.8rem}}`;
export const PAGES_CSS_PATH = '/assets/buyer-pages.css';

/** Pages run no script, load nothing from elsewhere and may only post to us (and be sent on to the platform): the web kit's policy. */
export function page(title: string, body: Html, status = 200, formTargets: string[] = []): Response {
  return htmlResponse(documentShell({ title, styles: [PAGES_CSS_PATH], main: body }), { status, formTargets });
}

/** The reader's language: Accept-Language, else the business's locale (the same choice the mail makes). */
export { negotiateLocale };

/** "New York time" from "America/New_York": the city people say, not the zone's code. */
export function zoneWords(zone: string): string {
  const city = zone.split('/').pop()!.replace(/_/g, ' ');
  return zone === 'UTC' || zone === 'Etc/UTC' ? 'UTC' : `${city} time`;
}

export class Words {
  constructor(
    readonly locale: string,
    readonly zone: string,
  ) {}
  /** "Friday, December 4, 10:00 – 11:00 AM" in the business's zone, in the buyer's language. */
  when(startIso: string, endIso: string): string {
    const start = new Date(startIso);
    const end = new Date(endIso);
    const day = new Intl.DateTimeFormat(this.locale, {
      timeZone: this.zone,
      weekday: 'long',
      day: 'numeric',
      month: 'long',
      year: 'numeric',
    }).format(start);
    const times = new Intl.DateTimeFormat(this.locale, {
      timeZone: this.zone,
      hour: 'numeric',
      minute: '2-digit',
    }).formatRange(start, end);
    return `${day}, ${times}`;
  }
  time(iso: string): string {
    // Always with the day: the page may be read hours later, and the server's clock is not the reader's.
    return new Intl.DateTimeFormat(this.locale, {
      timeZone: this.zone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      hour: 'numeric',
      minute: '2-digit',
    }).format(new Date(iso));
  }
  money(minor: number, currency: string): string {
    return formatMoney(minor, currency, this.locale);
  }
  minutes(n: number): string {
    try {
      const unit = n % 60 === 0 ? 'hour' : 'minute';
      return new Intl.NumberFormat(this.locale, { style: 'unit', unit, unitDisplay: 'long' }).format(
        unit === 'hour' ? n / 60 : n,
      );
    } catch {
      return `${n} min`;
    }
  }
}
