import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUSINESS_FILE_SCHEMA_ID, businessFileJsonSchema } from '../../src/server/business-file.js';

/**
 * `schemas/business-file.schema.json` is generated from the zod schema. This test keeps the
 * committed copy in step; regenerate it with `UPDATE_SCHEMAS=1 npx vitest run test/server/business-file-schema.test.ts`.
 */
const schemaPath = fileURLToPath(new URL('../../schemas/business-file.schema.json', import.meta.url));
const emitted = `${JSON.stringify(businessFileJsonSchema, null, 2)}\n`;

describe('business file JSON Schema', () => {
  it('is a draft 2020-12 schema with our $id, title and description', () => {
    expect(businessFileJsonSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(businessFileJsonSchema.$id).toBe(BUSINESS_FILE_SCHEMA_ID);
    expect(BUSINESS_FILE_SCHEMA_ID).toBe('https://usp-server.dev/schemas/business-file.json');
    expect(typeof businessFileJsonSchema.title).toBe('string');
    expect(typeof businessFileJsonSchema.description).toBe('string');
    expect(businessFileJsonSchema.additionalProperties).toBe(false);
    const defs = businessFileJsonSchema.$defs as Record<string, Record<string, unknown>>;
    expect(Object.keys(defs)).toEqual(
      expect.arrayContaining(['Service', 'Resource', 'Duration', 'WeeklyHours', 'Settings']),
    );
    expect(defs.Service.allOf).toBeInstanceOf(Array);
    expect(defs.Duration.oneOf).toHaveLength(3);
  });

  it('matches the committed schemas/business-file.schema.json (UPDATE_SCHEMAS=1 rewrites it)', () => {
    if (process.env.UPDATE_SCHEMAS === '1') writeFileSync(schemaPath, emitted);
    expect(existsSync(schemaPath), `${schemaPath} is missing; run with UPDATE_SCHEMAS=1`).toBe(true);
    expect(readFileSync(schemaPath, 'utf8')).toBe(emitted);
  });
});
