import { describe, expect, test } from 'vitest';
import {
  contentSecurityPolicy,
  documentShell,
  errorCard,
  escapeHtml,
  html,
  htmlResponse,
  pageHeaders,
  raw,
  styleSheet,
} from '../../src/web/index.js';

const ATTACK = `<script>alert("x")</script><img src=x onerror='y'>&`;

describe('the web kit escapes every value interpolated into a page', () => {
  test('a stored value with markup in it renders as text, in element and attribute position', () => {
    const out = html`<p title="${ATTACK}">${ATTACK}</p>`.toString();
    expect(out).not.toContain('<script');
    expect(out).not.toContain('<img');
    expect(out).not.toMatch(/title="[^"]*"[^>]*onerror/);
    expect(out).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=&#39;y&#39;&gt;&amp;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=&#39;y&#39;&gt;&amp;</p>',
    );
  });
  test('markup made by the template is not escaped twice, lists need no join, and nothing renders for null or false', () => {
    const items = ['a&b', 'c'].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${3}`.toString()).toBe(
      '<ul><li>a&amp;b</li><li>c</li></ul>3',
    );
    expect(html`${raw('<b>ours</b>')}`.toString()).toBe('<b>ours</b>');
  });
  test('a plain string joined from markup is escaped (only markup passes through)', () => {
    const joined = [html`<li>x</li>`].join('');
    expect(html`${joined}`.toString()).toBe('&lt;li&gt;x&lt;/li&gt;');
  });
  test('escapeHtml is the same escaping, for pages still built as strings, and reads null as empty', () => {
    expect(escapeHtml(ATTACK)).toBe(html`${ATTACK}`.toString());
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(undefined)).toBe('');
    expect(escapeHtml(42)).toBe('42');
  });
  test('a promise interpolated into a page is a programming error, not a late page', () => {
    expect(() => html`${Promise.resolve('x')}`).toThrow(TypeError);
  });
});

describe('the pages policy is one builder, differing only by form-action targets', () => {
  test('without targets: no script, our styles and images only, forms only to us, no framing, no base', () => {
    expect(contentSecurityPolicy()).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
  });
  test('targets are added to form-action and nowhere else', () => {
    const csp = contentSecurityPolicy({ formTargets: ['https://client.example', 'https://p.example'] });
    expect(csp).toContain("form-action 'self' https://client.example https://p.example;");
    expect(csp.match(/client\.example/g)).toHaveLength(1);
  });
  test('page headers: the policy, no-store, no referrer, no framing, nosniff', () => {
    expect(pageHeaders({ formTargets: ['https://x.example'] })).toEqual({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': contentSecurityPolicy({ formTargets: ['https://x.example'] }),
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
    });
    const res = htmlResponse(html`<p>x</p>`, { status: 403 });
    expect(res.status).toBe(403);
    res.headers.append('Set-Cookie', 'a=b');
    expect(res.headers.get('set-cookie')).toBe('a=b');
  });
});

describe('one document shell and one error card', () => {
  test('the shell escapes the title, links each style sheet and wraps the body in one main', () => {
    const page = documentShell({
      title: 'A & B',
      styles: ['/a.css', '/b.css'],
      header: html`<header>h</header>`,
      main: html`<h1>x</h1>`,
    }).toString();
    expect(page).toBe(
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>A &amp; B</title><link rel="stylesheet" href="/a.css"><link rel="stylesheet" href="/b.css"></head><body><header>h</header><main><h1>x</h1></main></body></html>',
    );
  });
  test('the error card escapes its heading and text and offers the way back', () => {
    expect(errorCard({ heading: '<i>no</i>', text: 'a"b', back: { href: '/admin', label: 'Back' } }).toString()).toBe(
      '<section class="card"><h1>&lt;i&gt;no&lt;/i&gt;</h1><p>a&quot;b</p><p><a href="/admin">Back</a></p></section>',
    );
    expect(errorCard({ heading: 'No' }).toString()).toBe('<section class="card"><h1>No</h1></section>');
  });
});

describe('one style sheet answer for every door', () => {
  test('css from our origin, cached an hour, never sniffed', async () => {
    const res = styleSheet('main{}');
    expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe('main{}');
  });
});
