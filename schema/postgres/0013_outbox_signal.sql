-- A committed outbox row wakes the delivery workers at once, in this process and in others:
-- every statement that inserts notifications sends NOTIFY on alertmon_outbox, which Postgres
-- delivers only when the transaction commits (and once per transaction, however many rows).
-- A trigger rather than a call in the code, so every writer of the outbox signals, whatever
-- path wrote the row. The workers' poll stays as the fallback (a lost listening connection).
CREATE OR REPLACE FUNCTION alertmon_signal_outbox() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('alertmon_outbox', ''); RETURN NULL; END $$;

DROP TRIGGER IF EXISTS alert_notifications_signal ON alert_notifications;

CREATE TRIGGER alert_notifications_signal AFTER INSERT ON alert_notifications FOR EACH STATEMENT EXECUTE FUNCTION alertmon_signal_outbox();
