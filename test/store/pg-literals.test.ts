/**
 * String literals for PostgreSQL's simple queries are written by our own `escapeLiteral` (one
 * regular-expression pass; pg's loops over characters, slow on kilobyte documents): its text must
 * be exactly pg's, since the server reads it back as the value.
 */
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { escapeLiteral, inlined } from '../../src/store/postgres/literals.js';

describe("a string literal is written exactly as pg's escapeLiteral writes it", () => {
  test('quotes, backslashes, both, neither, empty and non-ASCII text', () => {
    for (const s of ['', 'plain', "it's", 'a\\b', "'\\'\\", '{"k":"it\'s \\"q\\" \\\\n"}', 'ünïcødé \u2028 😀', "''''"])
      expect(escapeLiteral(s), s).toBe(pg.escapeLiteral(s));
  });

  test('random strings over quotes, backslashes and ordinary characters', () => {
    const alphabet = ["'", '\\', 'a', ' ', '"', 'é', '\n', '$'];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 2000; i++) {
      const s = Array.from({ length: next() % 24 }, () => alphabet[next() % alphabet.length]).join('');
      expect(escapeLiteral(s), s).toBe(pg.escapeLiteral(s));
    }
  });

  test('a statement with string parameters inlined uses it', () => {
    expect(inlined('SELECT $1, $2', ["o'k", 'c:\\x'])).toBe("SELECT 'o''k',  E'c:\\\\x'");
  });
});
