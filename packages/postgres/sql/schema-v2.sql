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

-- @paywire/postgres schema version 2
-- Version 2: the callback inbox records each event before it is acknowledged. The v1 claims
-- table is altered, not replaced: its rows stay (a v1 done key still answers done), and an instance
-- of version 1 still running its statements during a rolling upgrade keeps working on it.
-- state: pending | running | done | dead; NULL on a row a v1 statement inserted.
-- done (v1's column) is kept equal to "state is done" by every v2 write, so v1 statements read v2
--   rows rightly; a row whose done disagrees (state NULL, or 'done' with done false after a v1
--   claim took over an expired done key) was last written by v1, and is read as v1 reads it.
-- expires_at keeps its v1 meaning, "held or done until then", read by v1 instances and by both
--   prunes: a done key's keep end, and infinity for a pending, running or dead event, so that a v1
--   claim finds it held (never takes it over) and a v1 prune never deletes it.
-- due_at: when a pending event may run, or when a running event's lease ends; NULL otherwise.
-- fields: the inbox's encoded fields as UTF-8 bytes (bytea: NUL round-trips, text cannot hold it),
--   dropped once done; ref and its SHA-256 ref_hash: the payment, for forget(ref).
-- The constraints are NOT VALID: every v1 row passes them (its state is NULL), so no scan is
-- needed; they hold for every row written from now on, by v1 statements too.
ALTER TABLE paywire.claims
  ADD COLUMN state text,
  ADD COLUMN due_at timestamptz,
  ADD COLUMN fields bytea,
  ADD COLUMN ref bytea,
  ADD COLUMN ref_hash bytea,
  ADD COLUMN received_at timestamptz,
  ADD COLUMN attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN last_error text,
  ADD CONSTRAINT claims_state CHECK (state IN ('pending', 'running', 'done', 'dead')) NOT VALID,
  ADD CONSTRAINT claims_v1_sees_held
    CHECK (state IS NULL OR state = 'done' OR (NOT done AND expires_at = 'infinity')) NOT VALID;
-- takeDue: the events due to run, oldest due first.
CREATE INDEX claims_due ON paywire.claims (due_at, key_hash) WHERE state IN ('pending', 'running');
-- failedEvents: the dead events, oldest received first.
CREATE INDEX claims_dead ON paywire.claims (received_at, key_hash) WHERE state = 'dead';
-- forget(ref): every record of one payment.
CREATE INDEX claims_ref ON paywire.claims (ref_hash) WHERE ref_hash IS NOT NULL;
-- prune: done keys and v1 claims past their time (every other row's expires_at is infinity).
CREATE INDEX claims_expiry ON paywire.claims (expires_at) WHERE expires_at < 'infinity';
INSERT INTO paywire.schema_version (version) VALUES (2);
COMMIT;
