/** The text beside a registry tool's structuredContent: what was found, and where to go next. */
import type { Message } from '../../operations/index.js';

const money = (amount: unknown, currency: unknown) =>
  typeof amount === 'number' ? `${(amount / 100).toFixed(2)} ${String(currency ?? '')}`.trim() : 'price on request';

function priceText(p: Record<string, any> | undefined): string {
  if (!p) return 'price unknown';
  if (p.model === 'free') return 'free';
  if (p.price_range) return `${money(p.price_range.min, p.currency)}-${money(p.price_range.max, p.currency)}`;
  return money(p.amount, p.currency);
}

export function summarizeRegistry(tool: string, data: Record<string, any>, messages: Message[]): string {
  const parts: string[] = messages.map(
    (m) => `${m.type === 'error' ? 'Could not complete' : m.type}: [${m.code}] ${m.content}`,
  );
  if (Array.isArray(data.services)) {
    const list = data.services as Array<Record<string, any>>;
    if (list.length === 0 && messages.length === 0) parts.push('No matching services.');
    for (const s of list) {
      parts.push(
        `${s.service_name} [${s.service_id}] at ${s.business?.name} (${s.business?.profile_url}): ${priceText(s.pricing)}${s.duration_minutes ? `, ${s.duration_minutes} min` : ''}${s.location?.address ? `, ${s.location.address}` : ''}.`,
      );
    }
    if (list.length > 0)
      parts.push(
        'Snapshots only: fetch the business profile at its profile_url and check availability and price there before booking.',
      );
  }
  if (Array.isArray(data.businesses)) {
    const list = data.businesses as Array<Record<string, any>>;
    if (list.length === 0 && messages.length === 0) parts.push('No matching businesses.');
    for (const b of list)
      parts.push(`${b.name} [${b.id}] ${b.profile_url}${b.location?.address ? `, ${b.location.address}` : ''}.`);
  }
  if (data.registration)
    parts.push(
      `Registration ${data.registration.id}: ${data.registration.name}, ${data.registration.status}, profile ${data.registration.profile_url}.`,
    );
  if (data.pagination?.has_more) parts.push('More results: repeat the call with pagination.cursor.');
  if (parts.length === 0) parts.push(`${tool} done.`);
  return parts.join('\n');
}
