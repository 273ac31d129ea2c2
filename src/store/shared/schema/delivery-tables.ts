/** Webhook deliveries and their attempts, written once and rendered per engine (see types.ts). */
import type { SqlTypes } from './types.js';

export const webhookTables = (t: SqlTypes) => `
  CREATE TABLE webhook_deliveries (
    id ${t.serialKey},
    event_id TEXT NOT NULL,
    event TEXT NOT NULL,
    seq ${t.int} NOT NULL,
    order_key TEXT NOT NULL,
    target_url TEXT NOT NULL,
    subscription_id TEXT,
    body TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms ${t.int} NOT NULL,
    lease_until_ms ${t.int},
    created_ms ${t.int} NOT NULL,
    delivered_ms ${t.int},
    last_status INTEGER,
    last_error TEXT,
    last_latency_ms ${t.fraction},
    UNIQUE (event_id, target_url)
  );
  CREATE INDEX deliveries_due ON webhook_deliveries (status, next_attempt_ms);
  CREATE INDEX deliveries_order ON webhook_deliveries (order_key, target_url, seq);
  CREATE TABLE webhook_attempts (
    delivery_id ${t.int} NOT NULL,
    attempt INTEGER NOT NULL,
    at_ms ${t.int} NOT NULL,
    status_code INTEGER,
    latency_ms ${t.fraction} NOT NULL,
    error TEXT,
    PRIMARY KEY (delivery_id, attempt)
  );
`;
