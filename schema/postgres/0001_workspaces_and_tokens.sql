-- A workspace is one tenant: every other table carries its user_id and every query filters by it.
CREATE TABLE IF NOT EXISTS workspaces (
  user_id    text PRIMARY KEY,
  email      text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Only the SHA-256 of a token is kept: a leaked table does not leak working tokens.
CREATE TABLE IF NOT EXISTS api_tokens (
  token_hash   text PRIMARY KEY,
  user_id      text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  -- The first characters, enough to tell tokens apart in support without revealing them.
  token_prefix text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS api_tokens_user_id_idx ON api_tokens (user_id);
