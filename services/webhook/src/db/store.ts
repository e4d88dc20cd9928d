import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { attempts, deliveries, endpoints, events, type TWebhookSchema } from './schema';

export type WebhookDatabase = NodePgDatabase<TWebhookSchema>;
export type EndpointRow = typeof endpoints.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type DeliveryRow = typeof deliveries.$inferSelect;
export type AttemptRow = typeof attempts.$inferSelect;

/** A delivery taken for an attempt, with what the attempt needs. */
export interface ClaimedDelivery {
  readonly delivery: DeliveryRow;
  readonly endpoint: EndpointRow;
  readonly event: EventRow;
}

export interface NewEvent {
  readonly id: string;
  readonly accountId: string;
  readonly type: string;
  readonly occurredAt: Date;
  readonly data: unknown;
  readonly objectKey: string | null;
}

/** Error texts and answers are kept short. */
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 3)}...` : text);

export const createWebhookStore = (db: WebhookDatabase) => ({
  async insertEndpoint(row: typeof endpoints.$inferInsert): Promise<EndpointRow> {
    const [created] = await db.insert(endpoints).values(row).returning();
    if (!created) throw new Error('endpoint insert returned nothing');
    return created;
  },

  listEndpoints(accountId: string): Promise<EndpointRow[]> {
    return db
      .select()
      .from(endpoints)
      .where(eq(endpoints.accountId, accountId))
      .orderBy(desc(endpoints.createdAt));
  },

  async countEndpoints(accountId: string): Promise<number> {
    const [row] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(endpoints)
      .where(eq(endpoints.accountId, accountId));
    return row?.n ?? 0;
  },

  async getEndpoint(accountId: string, id: string): Promise<EndpointRow | undefined> {
    const [row] = await db
      .select()
      .from(endpoints)
      .where(and(eq(endpoints.accountId, accountId), eq(endpoints.id, id)));
    return row;
  },

  async updateEndpoint(
    accountId: string,
    id: string,
    patch: Partial<typeof endpoints.$inferInsert>,
  ): Promise<EndpointRow | undefined> {
    const [row] = await db
      .update(endpoints)
      .set({ ...patch, updatedAt: sql`now()` })
      .where(and(eq(endpoints.accountId, accountId), eq(endpoints.id, id)))
      .returning();
    return row;
  },

  /** Pending deliveries of an endpoint that is enabled again are due at once (`now`). */
  async resumeDeliveries(endpointId: string, now: Date): Promise<void> {
    await db
      .update(deliveries)
      .set({ nextAttemptAt: now, updatedAt: sql`now()` })
      .where(and(eq(deliveries.endpointId, endpointId), eq(deliveries.status, 'pending')));
  },

  async deleteEndpoint(accountId: string, id: string): Promise<boolean> {
    const removed = await db
      .delete(endpoints)
      .where(and(eq(endpoints.accountId, accountId), eq(endpoints.id, id)))
      .returning({ id: endpoints.id });
    return removed.length > 0;
  },

  /**
   * Keep the event (once: a redelivered message finds it) and queue one delivery per enabled endpoint
   * of its account that subscribes to its type (once per endpoint), due at `now`, in one transaction.
   * Answers how many deliveries are new.
   */
  recordEvent(event: NewEvent, now: Date): Promise<number> {
    return db.transaction(async (tx) => {
      await tx.insert(events).values(event).onConflictDoNothing({ target: events.id });
      const result = await tx.execute(sql`
        insert into webhook.deliveries (event_id, endpoint_id, kind, next_attempt_at)
        select ${event.id}, e.id, 'event', ${now.toISOString()}::timestamptz
          from webhook.endpoints e
         where e.account_id = ${event.accountId} and e.enabled and ${event.type} = any(e.event_types)
        on conflict (event_id, endpoint_id) where kind = 'event' do nothing`);
      return result.rowCount ?? 0;
    });
  },

  async getEvent(accountId: string, id: string): Promise<EventRow | undefined> {
    const [row] = await db
      .select()
      .from(events)
      .where(and(eq(events.accountId, accountId), eq(events.id, id)));
    return row;
  },

  async insertEvent(event: NewEvent): Promise<void> {
    await db.insert(events).values(event).onConflictDoNothing({ target: events.id });
  },

  /** A delivery of an earlier event (or a test event), due at `now`. */
  async queueDelivery(
    eventId: string,
    endpointId: string,
    kind: 'replay' | 'test',
    now: Date,
  ): Promise<DeliveryRow> {
    const [row] = await db
      .insert(deliveries)
      .values({ eventId, endpointId, kind, nextAttemptAt: now })
      .returning();
    if (!row) throw new Error('delivery insert returned nothing');
    return row;
  },

  /**
   * Take up to `limit` deliveries of enabled endpoints due at `now` (`FOR UPDATE SKIP LOCKED`: replicas
   * never take the same one) and lease them: their next attempt moves `leaseMs` ahead, so that a process
   * that dies mid-attempt leaves them due again after the lease, and the attempt counts. The service's
   * clock, not the database's, says what is due: retries are scheduled by it too.
   */
  async claimDue(limit: number, leaseMs: number, now: Date): Promise<ClaimedDelivery[]> {
    const at = sql`${now.toISOString()}::timestamptz`;
    const claimed = await db.execute<{ id: string }>(sql`
      with due as (
        select d.id from webhook.deliveries d
          join webhook.endpoints e on e.id = d.endpoint_id
         where d.status = 'pending' and d.next_attempt_at <= ${at} and e.enabled
         order by d.next_attempt_at
         limit ${limit}
         for update of d skip locked)
      update webhook.deliveries d
         set next_attempt_at = ${at} + make_interval(secs => ${leaseMs / 1000}),
             attempts = d.attempts + 1, updated_at = now()
        from due where d.id = due.id
      returning d.id`);
    const ids = claimed.rows.map((r) => r.id);
    if (ids.length === 0) return [];
    const rows = await db
      .select({ delivery: deliveries, endpoint: endpoints, event: events })
      .from(deliveries)
      .innerJoin(endpoints, eq(endpoints.id, deliveries.endpointId))
      .innerJoin(events, eq(events.id, deliveries.eventId))
      .where(inArray(deliveries.id, ids));
    return rows;
  },

  /**
   * Log an attempt and settle the delivery: succeeded, failed for good, or due again at `retryAt`.
   * Answers false, recording nothing, when the delivery is gone: its endpoint was deleted (deleting
   * its deliveries) while the attempt was under way.
   */
  async settle(input: {
    deliveryId: string;
    attemptedAt: Date;
    statusCode: number | null;
    latencyMs: number;
    succeeded: boolean;
    error: string | null;
    responseExcerpt: string | null;
    /** Null: no more attempts. */
    retryAt: Date | null;
  }): Promise<boolean> {
    return db.transaction(async (tx) => {
      // The delivery first: its row lock holds off the endpoint's deletion until the attempt is in.
      const settled = await tx
        .update(deliveries)
        .set({
          status: input.succeeded ? 'succeeded' : input.retryAt ? 'pending' : 'failed',
          nextAttemptAt: input.succeeded ? null : input.retryAt,
          updatedAt: sql`now()`,
        })
        .where(eq(deliveries.id, input.deliveryId))
        .returning({ id: deliveries.id });
      if (settled.length === 0) return false;
      await tx.insert(attempts).values({
        deliveryId: input.deliveryId,
        attemptedAt: input.attemptedAt,
        statusCode: input.statusCode,
        latencyMs: input.latencyMs,
        succeeded: input.succeeded,
        error: input.error === null ? null : clip(input.error, 500),
        responseExcerpt: input.responseExcerpt,
      });
      return true;
    });
  },

  /** A success clears the endpoint's failing streak. */
  async markHealthy(endpointId: string): Promise<void> {
    await db
      .update(endpoints)
      .set({ failingSince: null })
      .where(and(eq(endpoints.id, endpointId), sql`${endpoints.failingSince} is not null`));
  },

  /** A failure starts the streak (or keeps it); answers when it started. */
  async markFailing(endpointId: string, at: Date): Promise<Date> {
    const [row] = await db
      .update(endpoints)
      .set({ failingSince: sql`coalesce(${endpoints.failingSince}, ${at.toISOString()}::timestamptz)` })
      .where(eq(endpoints.id, endpointId))
      .returning({ failingSince: endpoints.failingSince });
    return row?.failingSince ?? at;
  },

  /** Disable an endpoint still enabled, as of `now`; answers the row when this call disabled it. */
  async disable(endpointId: string, reason: 'gone' | 'failing', now: Date): Promise<EndpointRow | undefined> {
    const [row] = await db
      .update(endpoints)
      .set({ enabled: false, disabledReason: reason, disabledAt: now, updatedAt: sql`now()` })
      .where(and(eq(endpoints.id, endpointId), eq(endpoints.enabled, true)))
      .returning();
    return row;
  },

  /** An endpoint's deliveries, newest first, with their attempts. */
  async listDeliveries(
    endpointId: string,
    limit: number,
    before: string | undefined,
  ): Promise<{ rows: Array<DeliveryRow & { eventType: string; attemptLog: AttemptRow[] }>; more: boolean }> {
    const cursor = before
      ? (await db.select().from(deliveries).where(eq(deliveries.id, before)))[0]
      : undefined;
    const rows = await db
      .select({ delivery: deliveries, eventType: events.type })
      .from(deliveries)
      .innerJoin(events, eq(events.id, deliveries.eventId))
      .where(
        and(
          eq(deliveries.endpointId, endpointId),
          cursor
            ? sql`(${deliveries.createdAt}, ${deliveries.id}) < (${cursor.createdAt.toISOString()}::timestamptz, ${cursor.id}::uuid)`
            : undefined,
        ),
      )
      .orderBy(desc(deliveries.createdAt), desc(deliveries.id))
      .limit(limit + 1);
    const page = rows.slice(0, limit);
    const ids = page.map((r) => r.delivery.id);
    const log = ids.length
      ? await db.select().from(attempts).where(inArray(attempts.deliveryId, ids)).orderBy(attempts.id)
      : [];
    return {
      rows: page.map((r) => ({
        ...r.delivery,
        eventType: r.eventType,
        attemptLog: log.filter((a) => a.deliveryId === r.delivery.id),
      })),
      more: rows.length > limit,
    };
  },

  async getDelivery(id: string): Promise<DeliveryRow | undefined> {
    const [row] = await db.select().from(deliveries).where(eq(deliveries.id, id));
    return row;
  },

  /**
   * Retention: remove finished deliveries (their attempts go with them) created more than
   * `retentionDays` ago, then events that old which no delivery refers to any more (a pending delivery
   * keeps its event). At most `batch` rows of each per call. Answers how many of each went.
   */
  async sweep(retentionDays: number, batch: number): Promise<{ deliveries: number; events: number }> {
    const cutoff = sql`now() - make_interval(days => ${retentionDays})`;
    const gone = await db.execute(sql`
      delete from webhook.deliveries where id in (
        select id from webhook.deliveries
         where status <> 'pending' and created_at < ${cutoff}
         limit ${batch})`);
    const dropped = await db.execute(sql`
      delete from webhook.events e where e.id in (
        select id from webhook.events
         where created_at < ${cutoff}
           and not exists (select 1 from webhook.deliveries d where d.event_id = webhook.events.id)
         limit ${batch})`);
    return { deliveries: gone.rowCount ?? 0, events: dropped.rowCount ?? 0 };
  },
});

export type WebhookStore = ReturnType<typeof createWebhookStore>;
