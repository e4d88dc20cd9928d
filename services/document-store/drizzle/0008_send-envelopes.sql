ALTER TABLE "documents"."envelopes" ALTER COLUMN "original_hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "documents"."envelopes" ADD COLUMN "send_id" text;--> statement-breakpoint
ALTER TABLE "documents"."envelopes" ADD CONSTRAINT "envelopes_send_id_unique" UNIQUE("send_id");--> statement-breakpoint
-- A send (POST /api/v1/send) is a one-signer envelope. The send keeps its own parts in
-- signing_requests (its link, positions, reminders, claim, story and signing.* events); this trigger
-- keeps its envelope (envelope `env_<send id's suffix>`, recipient `rcp_<same>`) in step with it, in the
-- same transaction as every change of the send, whichever code path made the change (including the
-- sweep's expiry in bulk). The envelope is read like any other (envelope.get, envelope.list); its
-- writes go through the send. The send's fields become one signature field per position.
CREATE OR REPLACE FUNCTION "documents"."sync_send_envelope"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_envelope_id text := 'env_' || substr(NEW.id, 6);
  v_recipient_id text := 'rcp_' || substr(NEW.id, 6);
BEGIN
  IF NOT EXISTS (SELECT 1 FROM documents.envelopes WHERE send_id = NEW.id) THEN
    INSERT INTO documents.envelopes (
      id, account_id, audit_id, sender_email, subject, message, file_name, original_key, original_hash,
      page_count, status, head_key, revision, expires_at, reminders, created_at, send_id
    ) VALUES (
      v_envelope_id, NEW.account_id, NEW.audit_id, NEW.sender_email, NEW.subject, NEW.message,
      NEW.file_name, NEW.object_key, NULL,
      COALESCE(NEW.page_count,
        (SELECT max((p->>'page')::int) + 1 FROM jsonb_array_elements(NEW.positions) AS p), 1),
      'pending', NEW.object_key, 0, NEW.expires_at, NULL, NEW.sent_at, NEW.id
    );
    INSERT INTO documents.envelope_recipients (
      id, envelope_id, position, name, email, role, order_group, require_email_code, embedded, fields,
      status, notified_at
    ) VALUES (
      v_recipient_id, v_envelope_id, 0, NEW.recipient_name, NEW.recipient_email, 'signer', 1, false, false,
      (SELECT COALESCE(jsonb_agg(jsonb_build_object('type', 'signature', 'page', p->'page', 'x', p->'x',
         'y', p->'y', 'width', p->'width', 'required', true) ORDER BY n), '[]'::jsonb)
       FROM jsonb_array_elements(NEW.positions) WITH ORDINALITY AS t(p, n)),
      'notified', NEW.sent_at
    );
  END IF;
  UPDATE documents.envelopes SET
    status = CASE NEW.status WHEN 'signed' THEN 'completed' ELSE NEW.status END,
    revision = CASE NEW.status WHEN 'signed' THEN 1 ELSE 0 END,
    completed_at = NEW.signed_at,
    declined_at = NEW.declined_at,
    decline_reason = NEW.decline_reason,
    canceled_at = NEW.canceled_at,
    expired_at = NEW.expired_at,
    expires_at = NEW.expires_at,
    file_hash = NEW.file_hash,
    signed_key = CASE NEW.status WHEN 'signed'
      THEN (SELECT d.object_key FROM documents.documents d WHERE d.audit_id = NEW.audit_id) END
  WHERE send_id = NEW.id;
  UPDATE documents.envelope_recipients SET
    status = CASE
      WHEN NEW.status = 'signed' THEN 'signed'
      WHEN NEW.status = 'declined' THEN 'declined'
      WHEN NEW.viewed_at IS NOT NULL THEN 'viewed'
      ELSE 'notified' END,
    viewed_at = NEW.viewed_at,
    acted_at = COALESCE(NEW.signed_at, NEW.declined_at),
    decline_reason = NEW.decline_reason,
    reminders_sent = NEW.reminder_count
  WHERE envelope_id = (SELECT id FROM documents.envelopes WHERE send_id = NEW.id);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "signing_requests_sync_send_envelope"
  AFTER INSERT OR UPDATE OF status, viewed_at, signed_at, declined_at, decline_reason, canceled_at,
    expired_at, expires_at, file_hash, reminder_count
  ON "documents"."signing_requests"
  FOR EACH ROW EXECUTE FUNCTION "documents"."sync_send_envelope"();--> statement-breakpoint
-- Sends made before this migration get their envelopes too.
UPDATE "documents"."signing_requests" SET status = status;
