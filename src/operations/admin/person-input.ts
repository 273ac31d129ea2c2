/** The person a client or personal-data operation is about, as the business names them: an email and/or a phone. */
import { z } from 'zod';
import { personOf, type Person } from '../../domain/index.js';
import { invalidRequest } from '../core/errors.js';

export const PersonInput = {
  email: z.string().trim().max(320).optional().describe("The person's email (matched case-insensitively)."),
  phone: z.string().trim().max(50).optional().describe("The person's phone number (matched on its digits)."),
};

/** The person, or invalid_request naming the field when neither an email nor a phone was given. */
export function personFrom(inp: { email?: string; phone?: string }): Person {
  const p = personOf(inp.email, inp.phone);
  if (!p)
    throw invalidRequest('email: give an email or a phone number (at least five digits)', [
      { field: 'email', message: 'an email or a phone number is required' },
    ]);
  return p;
}
