/** The package's public surface is the short list src/index.ts declares, and nothing leaks into it by accident. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import * as pkg from '../../src/index.js';

describe('the package exports only what src/index.ts lists', () => {
  test('the runtime exports are the composition root and the business-file reader', () => {
    expect(Object.keys(pkg).sort()).toEqual(
      [
        'BusinessFileError',
        'businessFileJsonSchema',
        'consoleLogger',
        'createUspServer',
        'loadBusinessFile',
        'parseBusinessFile',
      ].sort(),
    );
  });

  test('package.json points its main entry at the built src/index.ts', () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
      main?: string;
    };
    expect(manifest.main).toBe('dist/index.js');
  });

  test('package.json exports the platform client library as usp-server/client, beside the main entry', () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
      exports?: Record<string, any>;
    };
    expect(manifest.exports?.['.']).toBe('./dist/index.js');
    expect(manifest.exports?.['./client']).toEqual({
      types: './dist/client/index.d.ts',
      default: './dist/client/index.js',
    });
  });
});
