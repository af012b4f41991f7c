-- Idempotency keys of control-plane creates (docs/api.md, Safe retries): a POST that
-- creates a resource with an Idempotency-Key header is done once per workspace and key; a
-- retry within 24 hours gets the first answer again. Rows older than that are expired by the
-- worker (and taken over lazily by a new request with the same key).

CREATE TABLE IF NOT EXISTS idempotency_keys (
  workspace_id    text NOT NULL REFERENCES workspaces (user_id) ON DELETE CASCADE,
  idempotency_key text NOT NULL,
  -- SHA-256 of the request's method, path and body: the same key with another body is refused.
  request_hash    text NOT NULL,
  -- NULL while the first request is being answered; then its status and body, as sent
  -- (text, not jsonb, so a replay is the same bytes).
  response_status integer,
  response_body   text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, idempotency_key)
);

-- The expiry deletes by age.
CREATE INDEX IF NOT EXISTS idempotency_keys_created_idx ON idempotency_keys (created_at);
