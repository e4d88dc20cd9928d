import { and, eq, sql } from 'drizzle-orm';
import type { KeyDatabase } from './key-repository';
import { documentReservations, documentUsage } from './schema';

/** Documents counted per account and UTC month, and the reservations that make up the count. */
export interface QuotaRepository {
  /**
   * Count one document for the month unless `limit` (null: none) is reached, and record the
   * reservation; undefined when the month is full. One statement: the row lock taken by the upsert
   * orders concurrent reservations, so they never grant more than `limit`.
   */
  reserve(input: {
    accountId: string;
    month: string;
    limit: number | null;
  }): Promise<{ reservationId: string; used: number } | undefined>;
  /** Give a reservation back once; undefined when it is not this account's or does not exist. */
  release(input: {
    accountId: string;
    reservationId: string;
    now: Date;
  }): Promise<{ month: string; alreadyReleased: boolean } | undefined>;
  /** Documents counted for the month (0 when none). */
  used(accountId: string, month: string): Promise<number>;
}

export const createQuotaRepository = (db: KeyDatabase): QuotaRepository => ({
  async reserve({ accountId, month, limit }) {
    // The insert branch counts the month's first document (every plan allows at least one); the update
    // branch only when the count is below the limit. No row back means the month is full.
    const result = await db.execute<{ id: string; used: number }>(sql`
      with counted as (
        insert into ${documentUsage} as u (account_id, month, used)
        values (${accountId}, ${month}::date, 1)
        on conflict (account_id, month) do update set used = u.used + 1
          where ${limit}::integer is null or u.used < ${limit}::integer
        returning u.account_id, u.month, u.used
      ), reserved as (
        insert into ${documentReservations} (account_id, month)
        select account_id, month from counted
        returning id
      )
      select reserved.id, counted.used from reserved, counted`);
    const [row] = result.rows;
    return row && { reservationId: row.id, used: Number(row.used) };
  },

  async release({ accountId, reservationId, now }) {
    const result = await db.execute<{ month: string; released: boolean }>(sql`
      with target as (
        select month from ${documentReservations}
        where id = ${reservationId} and account_id = ${accountId}
      ), released as (
        -- The condition is on the updated row itself, so a concurrent release that committed first is
        -- seen (READ COMMITTED re-checks it after the row lock): a reservation is given back once.
        update ${documentReservations} r set released_at = ${now.toISOString()}::timestamptz
        where r.id = ${reservationId} and r.account_id = ${accountId} and r.released_at is null
        returning r.account_id, r.month
      ), uncounted as (
        update ${documentUsage} u set used = u.used - 1
        from released where u.account_id = released.account_id and u.month = released.month
        returning u.used
      )
      select to_char(target.month, 'YYYY-MM-DD') as month,
             exists (select 1 from released) and exists (select 1 from uncounted) as released
      from target`);
    const [row] = result.rows;
    return row && { month: row.month, alreadyReleased: !row.released };
  },

  async used(accountId, month) {
    const [row] = await db
      .select({ used: documentUsage.used })
      .from(documentUsage)
      .where(and(eq(documentUsage.accountId, accountId), eq(documentUsage.month, month)));
    return row?.used ?? 0;
  },
});
