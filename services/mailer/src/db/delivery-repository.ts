import { and, eq, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { deliveries, type TDeliveryState, type TMailerSchema } from './schema';

export type MailerDatabase = NodePgDatabase<TMailerSchema>;

/** Which email: one per event, recipient and kind. */
export interface DeliveryKey {
  readonly eventId: string;
  readonly kind: string;
  readonly recipient: string;
  readonly sendId: string;
  readonly auditId: string;
}

/** The outcome of trying to take an email for sending. */
export type TClaim =
  | { readonly claimed: true; readonly id: string; readonly attempts: number }
  | { readonly claimed: false; readonly state: TDeliveryState };

export interface DeliveryRepository {
  /**
   * Record the email (once: the row is unique per event, recipient and kind) and take it for an
   * attempt: a queued or failed email becomes `sending` with one more attempt. An email already sent
   * or skipped is not taken again; neither is one another process is sending right now (unless its
   * lease of `leaseMs` ran out: that process died mid-attempt).
   */
  claim(key: DeliveryKey, leaseMs: number): Promise<TClaim>;
  /** Sent; with the hash of the token of the link it carried when a one-time code goes with that link. */
  markSent(id: string, messageId: string, linkTokenHash?: string): Promise<void>;
  /**
   * The hash of the link's token the sent email of this event, recipient and kind carried, for its
   * one-time code's retry; undefined when none was recorded.
   */
  linkTokenHashOf(key: {
    readonly eventId: string;
    readonly recipient: string;
    readonly kind: string;
  }): Promise<string | undefined>;
  markFailed(id: string, error: string): Promise<void>;
  markSkipped(id: string, reason: string): Promise<void>;
}

/** Error texts are kept short: an SMTP answer, not a stack. */
const clip = (text: string) => (text.length > 500 ? `${text.slice(0, 497)}...` : text);

export const createDeliveryRepository = (db: MailerDatabase): DeliveryRepository => ({
  async claim(key, leaseMs) {
    const recipient = key.recipient.toLowerCase();
    await db
      .insert(deliveries)
      .values({ ...key, recipient })
      .onConflictDoNothing({ target: [deliveries.eventId, deliveries.recipient, deliveries.kind] });
    const match = and(
      eq(deliveries.eventId, key.eventId),
      eq(deliveries.recipient, recipient),
      eq(deliveries.kind, key.kind),
    );
    const [taken] = await db
      .update(deliveries)
      .set({ state: 'sending', attempts: sql`${deliveries.attempts} + 1`, updatedAt: sql`now()` })
      .where(
        and(
          match,
          or(
            inArray(deliveries.state, ['queued', 'failed']),
            and(
              eq(deliveries.state, 'sending'),
              lt(deliveries.updatedAt, sql`now() - make_interval(secs => ${leaseMs / 1000})`),
            ),
          ),
        ),
      )
      .returning({ id: deliveries.id, attempts: deliveries.attempts });
    if (taken) return { claimed: true, id: taken.id, attempts: taken.attempts };
    const [row] = await db.select({ state: deliveries.state }).from(deliveries).where(match);
    return { claimed: false, state: row?.state ?? 'queued' };
  },
  async markSent(id, messageId, linkTokenHash) {
    await db
      .update(deliveries)
      .set({
        state: 'sent',
        messageId,
        sentAt: sql`now()`,
        updatedAt: sql`now()`,
        ...(linkTokenHash ? { linkTokenHash } : {}),
      })
      .where(eq(deliveries.id, id));
  },
  async linkTokenHashOf(key) {
    const [row] = await db
      .select({ linkTokenHash: deliveries.linkTokenHash })
      .from(deliveries)
      .where(
        and(
          eq(deliveries.eventId, key.eventId),
          eq(deliveries.recipient, key.recipient.toLowerCase()),
          eq(deliveries.kind, key.kind),
          eq(deliveries.state, 'sent'),
          isNotNull(deliveries.linkTokenHash),
        ),
      )
      .limit(1);
    return row?.linkTokenHash ?? undefined;
  },
  async markFailed(id, error) {
    await db
      .update(deliveries)
      .set({ state: 'failed', lastError: clip(error), updatedAt: sql`now()` })
      .where(eq(deliveries.id, id));
  },
  async markSkipped(id, reason) {
    await db
      .update(deliveries)
      .set({ state: 'skipped', lastError: clip(reason), updatedAt: sql`now()` })
      .where(eq(deliveries.id, id));
  },
});
