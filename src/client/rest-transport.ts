/**
 * The REST side of the suite: one request, one answer as the wire gave it (status, headers, the
 * body parsed when it is JSON). It presents the suite's platform profile in `USP-Agent` unless told
 * not to, and never follows a redirect (a profile or answer that redirects is itself a finding).
 */
export interface RestAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  body: any;
  text: string;
}

export interface RestRequest {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The profile to present; null sends no USP-Agent; default the suite's platform profile. */
  profile?: string | null;
  idempotencyKey?: string;
  ifMatch?: string;
  /** Authenticate this request with this function instead of the client's current one. */
  auth?: Authenticate;
}

export type Authenticate = (
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
) => Record<string, string>;

export class RestClient {
  /** The profile presented in USP-Agent by default (set once the suite's platform is up). */
  profile: string;

  constructor(
    readonly base: string,
    profile: string,
    private readonly timeoutMs: number,
    /** Adds authentication to a request (the suite's platform signs or proves); identity by default. */
    public authenticate: Authenticate = (_m, _u, h) => h,
    /** How requests are sent (a pinned, vetted fetch for a business somebody else named); the global fetch by default. */
    private readonly fetch: typeof globalThis.fetch = globalThis.fetch,
  ) {
    this.profile = profile;
  }

  url(path: string): string {
    return new URL(path, this.base.endsWith('/') ? this.base : `${this.base}/`).toString();
  }

  async send(path: string, r: RestRequest = {}): Promise<RestAnswer> {
    const method = r.method ?? (r.body === undefined ? 'GET' : 'POST');
    let headers: Record<string, string> = { Accept: 'application/json', ...(r.headers ?? {}) };
    const profile = r.profile === undefined ? this.profile : r.profile;
    if (profile !== null) headers['USP-Agent'] = `profile="${profile}"`;
    if (r.idempotencyKey) headers['Idempotency-Key'] = r.idempotencyKey;
    if (r.ifMatch) headers['If-Match'] = r.ifMatch;
    const body = r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    if (body !== undefined && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type'))
      headers['Content-Type'] = 'application/json';
    const url = this.url(path);
    if (
      !r.headers ||
      !Object.keys(r.headers).some((k) => k.toLowerCase() === 'authorization' || k.toLowerCase() === 'dpop')
    ) {
      headers = (r.auth ?? this.authenticate)(method, url, headers, body);
    }
    let res = await this.fetch(url, {
      method,
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    // A business's rate limit (10.2.2) is honoured once when it asks for a short wait; the retry
    // carries fresh authentication (a proof is single-use).
    const wait = Number(res.headers.get('retry-after'));
    if (res.status === 429 && Number.isFinite(wait) && wait * 1000 <= this.timeoutMs) {
      await res.text();
      await new Promise((r) => setTimeout(r, wait * 1000));
      const again =
        r.headers && Object.keys(r.headers).some((k) => k.toLowerCase() === 'dpop')
          ? headers
          : (r.auth ?? this.authenticate)(method, url, { ...headers }, body);
      res = await this.fetch(url, {
        method,
        headers: again,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  post(path: string, body: unknown, r: Omit<RestRequest, 'body'> = {}): Promise<RestAnswer> {
    return this.send(path, { ...r, method: r.method ?? 'POST', body });
  }
}

/** The `messages[]` codes of an answer (business outcomes). */
export function messageCodes(body: any): string[] {
  const m = body?.messages;
  return Array.isArray(m) ? m.map((x: any) => String(x?.code)) : [];
}

/** A short description of an answer for a FAIL reason. */
export function describeAnswer(a: RestAnswer): string {
  const codes = messageCodes(a.body);
  const problem = a.body?.type && a.body?.status ? ` problem ${a.body.type}` : '';
  return `HTTP ${a.status}${problem}${codes.length ? ` messages [${codes.join(', ')}]` : ''}${a.body === undefined ? ` body ${JSON.stringify(a.text.slice(0, 80))}` : ''}`;
}
