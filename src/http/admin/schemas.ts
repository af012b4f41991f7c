import { PATTERNS } from '../validation.js';

export interface IssueTokenBody {
  user_id: string;
  email?: string;
}

export const issueTokenSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['user_id'],
  properties: {
    user_id: { type: 'string', pattern: PATTERNS.workspaceId, minLength: 1, maxLength: 200 },
    email: { type: 'string', format: 'email', maxLength: 320 },
  },
} as const;

export interface AnalystQueryBody {
  query: string;
}

export const analystQuerySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: {
    query: { type: 'string', pattern: PATTERNS.notBlank, maxLength: 100_000 },
  },
} as const;
