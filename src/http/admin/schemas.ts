import type { FromSchema } from 'json-schema-to-ts';
import { PATTERNS } from '../validation.js';

export const issueTokenSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['user_id'],
  properties: {
    user_id: { type: 'string', pattern: PATTERNS.workspaceId, minLength: 1, maxLength: 200 },
    email: { type: 'string', format: 'email', maxLength: 320 },
  },
} as const;

/** Also what `npm run token` sends. */
export type IssueTokenBody = FromSchema<typeof issueTokenSchema>;

export const analystQuerySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: {
    query: { type: 'string', pattern: PATTERNS.notBlank, maxLength: 100_000 },
  },
} as const;

export const issuedTokenSchema = {
  type: 'object',
  required: ['token', 'user_id'],
  properties: {
    token: { type: 'string', description: 'chp_ and 43 base64url characters.' },
    user_id: { type: 'string' },
  },
} as const;

export const analystRowsSchema = { type: 'array', items: { type: 'object' } } as const;
