/**
 * The registry's index tables, written once and rendered per engine (see types.ts). Each engine
 * indexes them its own way (geography, free text), so the indexes stand in its migrations.
 */
import type { IfNew, SqlTypes } from './types.js';

export const registryBusinessesTable = (t: SqlTypes, ifNew: IfNew) => `
  CREATE TABLE ${ifNew}registry_businesses (
    bid ${t.rowKey},
    id TEXT NOT NULL UNIQUE,
    profile_url TEXT NOT NULL UNIQUE,
    deployment_mode TEXT NOT NULL,
    status TEXT NOT NULL,
    owner TEXT,
    entry TEXT NOT NULL,
    lat ${t.real},
    lng ${t.real},
    verticals TEXT NOT NULL,
    categories TEXT NOT NULL,
    search_text TEXT NOT NULL,
    name_text TEXT NOT NULL,
    created_ms ${t.int} NOT NULL,
    last_indexed_ms ${t.int},
    next_index_ms ${t.int} NOT NULL,
    failures INTEGER NOT NULL DEFAULT 0
  );`;

/** A term index: (term, key) pairs, read by term. */
export const registryTermsTable = (
  t: SqlTypes,
  ifNew: IfNew,
  table: 'registry_business_terms' | 'registry_service_terms',
  key: 'bid' | 'rid',
) => `
  CREATE TABLE ${ifNew}${table} (${key} ${t.int} NOT NULL, term TEXT NOT NULL, PRIMARY KEY (term, ${key}))${t.withoutRowid};`;

export const registryServicesTable = (t: SqlTypes, ifNew: IfNew) => `
  CREATE TABLE ${ifNew}registry_services (
    rid ${t.rowKey},
    bid ${t.int} NOT NULL,
    business_id TEXT NOT NULL,
    service_id TEXT NOT NULL,
    vertical TEXT NOT NULL,
    terms TEXT NOT NULL,
    search_text TEXT NOT NULL,
    name_text TEXT NOT NULL,
    currency TEXT,
    price_min ${t.int},
    price_max ${t.int},
    dur_min INTEGER,
    dur_max INTEGER,
    lat ${t.real},
    lng ${t.real},
    result TEXT NOT NULL,
    indexed_ms ${t.int} NOT NULL,
    UNIQUE (business_id, service_id)
  );`;
