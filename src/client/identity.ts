/**
 * The platform's own identity: the Ed25519 key it proves possession of (rotated, with the keys it
 * retired kept for the credentials bound to them), the ES256 key it signs requests with, and the
 * platform profile document that publishes both. `servePlatform` (server.ts) serves the document
 * and receives webhooks; `writePlatformFiles` writes it for a static host instead.
 */
import { createPrivateKey, createPublicKey, type JsonWebKey } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jwkThumbprint } from '../security/index.js';
import { createPopKey, createSigningIdentity, type PopKey, type SigningIdentity } from './platform-auth.js';

/** The protocol version this client speaks. */
export const CLIENT_USP_VERSION = '2026-08-20';

/** The protocol's capabilities, as a platform declares them by default (every one, at this version). */
export const DEFAULT_CAPABILITIES: Record<string, Array<{ version: string }>> = Object.fromEntries(
  [
    'dev.usp-protocol.services.catalog',
    'dev.usp-protocol.services.catalog.subscriptions',
    'dev.usp-protocol.services.availability',
    'dev.usp-protocol.services.bookings',
    'dev.usp-protocol.services.waitlist',
  ].map((k) => [k, [{ version: CLIENT_USP_VERSION }]]),
);

export interface PlatformIdentityOptions {
  /** Where the platform profile is published (presented to every business). Can be set later. */
  profileUrl?: string;
  /** Where businesses POST webhooks (published in the profile). */
  webhookUrl?: string;
  capabilities?: Record<string, Array<{ version: string }>>;
  version?: string;
}

/** The identity written to disk (private keys as JWK): keep it where only the platform reads it. */
export interface SavedIdentity {
  pop: JsonWebKey[];
  signing: { kid: string; jwk: JsonWebKey };
  profileUrl?: string;
  webhookUrl?: string;
  capabilities?: Record<string, Array<{ version: string }>>;
  version?: string;
}

const popFromPrivate = (jwk: JsonWebKey): PopKey => {
  const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
  const pub = createPublicKey(privateKey).export({ format: 'jwk' }) as JsonWebKey;
  const publicJwk = { kty: pub.kty, crv: pub.crv, x: pub.x };
  return { privateKey, publicJwk, jkt: jwkThumbprint(publicJwk) };
};

export class PlatformIdentity {
  profileUrl: string;
  webhookUrl: string | undefined;
  readonly capabilities: Record<string, Array<{ version: string }>>;
  readonly version: string;
  /** The proof-of-possession key used for new proofs. */
  popKey: PopKey;
  /** Keys retired by `rotate`, by thumbprint: still used for the credentials bound to them. */
  private readonly retired = new Map<string, PopKey>();
  readonly signing: SigningIdentity;

  constructor(o: PlatformIdentityOptions = {}, keys?: { pop: PopKey[]; signing: SigningIdentity }) {
    this.profileUrl = o.profileUrl ?? '';
    this.webhookUrl = o.webhookUrl;
    this.capabilities = o.capabilities ?? DEFAULT_CAPABILITIES;
    this.version = o.version ?? CLIENT_USP_VERSION;
    const [current, ...old] = keys?.pop ?? [createPopKey()];
    this.popKey = current!;
    for (const k of old) this.retired.set(k.jkt, k);
    this.signing = keys?.signing ?? createSigningIdentity(`platform-sig-${Date.now().toString(36)}`);
  }

  /** A new proof key; the old one stays for the credentials bound to it (`forget` drops it). */
  rotate(): PopKey {
    this.retired.set(this.popKey.jkt, this.popKey);
    this.popKey = createPopKey();
    return this.popKey;
  }

  forget(jkt: string): void {
    this.retired.delete(jkt);
  }

  /** The key with this thumbprint (current or retired), for a credential bound to it. */
  keyFor(jkt: string | undefined): PopKey {
    if (!jkt || jkt === this.popKey.jkt) return this.popKey;
    return this.retired.get(jkt) ?? this.popKey;
  }

  /** The platform profile to publish at `profileUrl` (its keys: every proof key in use, and the signing key). */
  profileDocument(): Record<string, unknown> {
    const pop = [this.popKey, ...this.retired.values()].map((k) => ({
      ...k.publicJwk,
      kid: `pop-${k.jkt.slice(0, 12)}`,
      use: 'sig',
      alg: 'EdDSA',
    }));
    const signing = { ...this.signing.publicJwk, kid: this.signing.kid, use: 'sig', alg: 'ES256' };
    return {
      usp: { version: this.version, capabilities: this.capabilities },
      keys: [...pop, signing],
      signing_keys: [signing],
      ...(this.webhookUrl ? { webhook_url: this.webhookUrl } : {}),
    };
  }

  save(): SavedIdentity {
    const priv = (k: PopKey) => k.privateKey.export({ format: 'jwk' }) as JsonWebKey;
    return {
      pop: [priv(this.popKey), ...[...this.retired.values()].map(priv)],
      signing: { kid: this.signing.kid, jwk: this.signing.privateKey.export({ format: 'jwk' }) as JsonWebKey },
      ...(this.profileUrl ? { profileUrl: this.profileUrl } : {}),
      ...(this.webhookUrl ? { webhookUrl: this.webhookUrl } : {}),
      capabilities: this.capabilities,
      version: this.version,
    };
  }

  static load(s: SavedIdentity): PlatformIdentity {
    const privateKey = createPrivateKey({ key: s.signing.jwk, format: 'jwk' });
    const pub = createPublicKey(privateKey).export({ format: 'jwk' }) as JsonWebKey;
    const signing: SigningIdentity = {
      kid: s.signing.kid,
      privateKey,
      publicJwk: { kty: pub.kty, crv: pub.crv, x: pub.x, y: pub.y },
    };
    return new PlatformIdentity(s, { pop: s.pop.map(popFromPrivate), signing });
  }
}

/** Write the platform profile as a file to publish with any static host (`<dir>/<name>`, default profile.json). */
export function writePlatformFiles(identity: PlatformIdentity, dir: string, name = 'profile.json'): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, `${JSON.stringify(identity.profileDocument(), null, 2)}\n`);
  return path;
}
