/**
 * The PostgreSQL deployment directory's tables (created idempotently in its own schema), their row
 * shapes and the small mappings the directory reads them with (deployment-directory.ts).
 */
import type { DomainClaim, HostedBusiness, HostedStatus } from '../deployment-port.js';

export type Row = {
  id: string;
  status: HostedStatus;
  reason: string | null;
  origin: string;
  added_at: string | number;
  payment_account: string | null;
};
export const COLS = 'id, status, reason, origin, added_at, payment_account';
export type NameRow = { name: string; business_id: string };
export type ClaimRow = { name: string; business_id: string; token: string; claimed_at: string | number };
export type RegRow = { business_id: string; registry: string; registration_id: string; profile_url: string };

export const migration = (s: string) => `
CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${s}.hosted_businesses (
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
  reason TEXT,
  origin TEXT NOT NULL,
  added_at BIGINT NOT NULL,
  definition TEXT
);
CREATE TABLE IF NOT EXISTS ${s}.hosted_names (
  name TEXT PRIMARY KEY,
  business_id TEXT NOT NULL REFERENCES ${s}.hosted_businesses(id),
  position INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS hosted_names_business ON ${s}.hosted_names(business_id, position);
CREATE TABLE IF NOT EXISTS ${s}.hosted_registrations (
  business_id TEXT NOT NULL REFERENCES ${s}.hosted_businesses(id),
  registry TEXT NOT NULL,
  registration_id TEXT NOT NULL,
  profile_url TEXT NOT NULL,
  PRIMARY KEY (business_id, registry)
);
ALTER TABLE ${s}.hosted_businesses ADD COLUMN IF NOT EXISTS definition TEXT;
ALTER TABLE ${s}.hosted_businesses ADD COLUMN IF NOT EXISTS payment_account TEXT;
CREATE UNIQUE INDEX IF NOT EXISTS hosted_businesses_payment_account ON ${s}.hosted_businesses(payment_account);
ALTER TABLE ${s}.hosted_businesses ADD COLUMN IF NOT EXISTS wake_at BIGINT DEFAULT 0;
CREATE INDEX IF NOT EXISTS hosted_businesses_wake ON ${s}.hosted_businesses(wake_at);
CREATE TABLE IF NOT EXISTS ${s}.hosted_domain_claims (
  name TEXT PRIMARY KEY,
  business_id TEXT NOT NULL REFERENCES ${s}.hosted_businesses(id),
  token TEXT NOT NULL,
  claimed_at BIGINT NOT NULL
);`;

export function asClaim(r: ClaimRow): DomainClaim {
  return { name: r.name, token: r.token, claimedAt: Number(r.claimed_at) };
}

export function copy(b: HostedBusiness): HostedBusiness {
  return { ...b, hosts: [...b.hosts] };
}

export function group<T extends { business_id: string }>(rows: T[]): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const list = m.get(r.business_id);
    if (list) list.push(r);
    else m.set(r.business_id, [r]);
  }
  return m;
}
