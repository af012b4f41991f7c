-- Signing secrets of webhook destinations (Standard Webhooks, docs/api.md, Signed webhooks).
-- Shown in full only when made (create, rotation); a rotation keeps the previous secret
-- signing beside the new one until previous_signing_secret_expires_at (24 hours).
ALTER TABLE destinations ADD COLUMN IF NOT EXISTS signing_secret text;
ALTER TABLE destinations ADD COLUMN IF NOT EXISTS previous_signing_secret text;
ALTER TABLE destinations ADD COLUMN IF NOT EXISTS previous_signing_secret_expires_at timestamptz;

-- Existing webhook destinations sign from now on too; their owners learn the secret by
-- rotating it. 32 bytes from two gen_random_uuid() (built in, a strong random source; 244 of
-- the 256 bits are random, the rest are the UUID version and variant), so no extension
-- (pgcrypto) is needed on either Postgres.
UPDATE destinations
SET signing_secret = 'whsec_' || encode(decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'), 'base64')
WHERE channel = 'webhook' AND signing_secret IS NULL;
