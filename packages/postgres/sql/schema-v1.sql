BEGIN;
-- @paywire/postgres schema version 1
CREATE SCHEMA IF NOT EXISTS paywire;
CREATE TABLE IF NOT EXISTS paywire.schema_version (
  version integer NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);
-- The intent journal: one row per open intent, deleted when it is closed.
CREATE TABLE paywire.intents (
  id_hash bytea PRIMARY KEY,
  id bytea NOT NULL,
  service_hash bytea NOT NULL,
  created_at double precision NOT NULL,
  record text NOT NULL
);
CREATE INDEX intents_service_created ON paywire.intents (service_hash, created_at, id);
-- Callback claims: who holds a dedupe key and until when (server time), or that it is done.
CREATE TABLE paywire.claims (
  key_hash bytea PRIMARY KEY,
  key bytea NOT NULL,
  token text NOT NULL,
  done boolean NOT NULL,
  expires_at timestamptz NOT NULL
);
-- runOnce: the done marks, committed in the same transaction as the merchant's own writes.
CREATE TABLE paywire.effects (
  key_hash bytea PRIMARY KEY,
  key bytea NOT NULL,
  done_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX effects_done_at ON paywire.effects (done_at);
INSERT INTO paywire.schema_version (version) VALUES (1);
COMMIT;
