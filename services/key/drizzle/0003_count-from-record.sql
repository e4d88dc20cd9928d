-- Documents counted from their record (events.document.signed with countFromRecord) instead of a
-- reservation before signing: the document's ID, unique so that a redelivered event counts once. The
-- index is partial (reservations have no document ID), so building it reads the table but writes only
-- the rows that have one: none when this migration runs.
ALTER TABLE "key"."document_reservations" ADD COLUMN "document_id" uuid;--> statement-breakpoint
CREATE UNIQUE INDEX "document_reservations_document_idx" ON "key"."document_reservations" USING btree ("document_id") WHERE document_id is not null;