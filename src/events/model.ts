// What an event definition is: the (agent, event) pair a workspace's logs are recorded
// under, with its display fields, timezone and sharing.

/** The agent of a definition (and a log record) that names none. */
export const DEFAULT_AGENT = 'default';

export interface EventDefinition {
  event_id: string;
  user_id: string;
  event: string;
  agent: string;
  title: string | null;
  description: string;
  unit: string;
  timezone: string;
  /** When the timezone last became another; null if it never did. */
  timezone_changed_at: Date | null;
  public: boolean;
  share_token: string;
  created_at: Date;
  updated_at: Date;
}

export interface NewEventDefinition {
  event: string;
  agent: string;
  title?: string | null;
  description?: string;
  unit?: string;
  timezone?: string;
  public?: boolean;
}

export type EventDefinitionChanges = Partial<Pick<EventDefinition, 'agent' | 'title' | 'description' | 'unit' | 'timezone' | 'public'>>;

/** Creating one more definition would pass the workspace's limit. */
export class DefinitionLimitError extends Error {
  constructor(readonly limit: number) {
    super(`The workspace has reached its limit of ${limit} event definitions.`);
    this.name = 'DefinitionLimitError';
  }
}
