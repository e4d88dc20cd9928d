import { PLAN_LIMITS, type TPlan } from '@esign/contracts';
import { sql } from 'drizzle-orm';
import type { KeyDatabase } from './key-repository';
import { accounts, documentReservations, documentUsage } from './schema';

/**
 * Documents counted per account and UTC month. The count is the month's reservations not given back
 * (`document_reservations`); for a plan with a limit, `document_usage` keeps the same count in one row
 * per account and month, whose row lock is what makes the limit exact under concurrency.
 */
export interface QuotaRepository {
  /**
   * Count one document for the month against the account's plan, in one statement: the account's plan
   * is read, and a reservation is recorded unless the plan's limit is reached. A plan with a limit counts
   * in the usage row first (the upsert's row lock orders concurrent reservations, so they never grant
   * more than the limit); a plan without one only records the reservation (no row that every signing
   * of the account would wait on). Undefined when the account does not exist; `reservationId` undefined
   * when the month is full; `used` (this one included) only for a plan with a limit.
   */
  reserve(input: {
    accountId: string;
    month: string;
  }): Promise<{ plan: TPlan; reservationId?: string; used?: number } | undefined>;
  /** Give a reservation back once; undefined when it is not this account's or does not exist. */
  release(input: {
    accountId: string;
    reservationId: string;
    now: Date;
  }): Promise<{ month: string; alreadyReleased: boolean } | undefined>;
  /** Documents counted for the month: its reservations not given back (0 when none). */
  used(accountId: string, month: string): Promise<number>;
  /**
   * Count documents that were made without a reservation (`countFromRecord`), in one statement: each
   * becomes a counted row of its month, once (a document already counted is skipped, so a
   * redelivered event changes nothing); an account whose plan has a limit by now (it changed since)
   * also gets them added to its usage row, past the limit if need be: the documents exist. Documents
   * of accounts that no longer exist are skipped. Returns how many were newly counted.
   */
  countRecorded(
    documents: readonly { documentId: string; accountId: string; month: string }[],
  ): Promise<number>;
}

/** Each plan's monthly limit (null: none) as the reservation statement reads them: `{"free":3,…}`. */
const MONTHLY_LIMITS_JSON = JSON.stringify(
  Object.fromEntries(Object.entries(PLAN_LIMITS).map(([plan, limits]) => [plan, limits.documentsPerMonth])),
);

export const createQuotaRepository = (db: KeyDatabase): QuotaRepository => ({
  async reserve({ accountId, month }) {
    // `counted` runs only for a plan with a limit: its insert branch counts the month's first document
    // (every plan allows at least one), its update branch only while the count is below the limit.
    // `reserved` records the reservation when the plan has no limit or `counted` gave a row.
    const result = await db.execute<{ plan: TPlan; id: string | null; used: number | null }>(sql`
      with account as (
        select id, plan, (${MONTHLY_LIMITS_JSON}::jsonb ->> plan)::integer as lim
        from ${accounts} where id = ${accountId}
      ), counted as (
        insert into ${documentUsage} as u (account_id, month, used)
        select id, ${month}::date, 1 from account where lim is not null
        on conflict (account_id, month) do update set used = u.used + 1
          where u.used < (select lim from account)
        returning u.used
      ), reserved as (
        insert into ${documentReservations} (account_id, month)
        select id, ${month}::date from account where lim is null or exists (select 1 from counted)
        returning id
      )
      select account.plan, reserved.id, counted.used
      from account left join reserved on true left join counted on true`);
    const [row] = result.rows;
    if (!row) return undefined;
    return {
      plan: row.plan,
      ...(row.id === null ? {} : { reservationId: row.id }),
      ...(row.used === null ? {} : { used: Number(row.used) }),
    };
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
        -- Only accounts whose plan has a limit keep a usage row (a plan without one has none to change).
        update ${documentUsage} u set used = u.used - 1
        from released where u.account_id = released.account_id and u.month = released.month and u.used > 0
        returning u.used
      )
      select to_char(target.month, 'YYYY-MM-DD') as month, exists (select 1 from released) as released
      from target`);
    const [row] = result.rows;
    return row && { month: row.month, alreadyReleased: !row.released };
  },

  async countRecorded(documents) {
    if (documents.length === 0) return 0;
    const result = await db.execute<{ counted: number | string }>(sql`
      with recorded as (
        select distinct on (r."documentId") r."documentId" as document_id, r."accountId" as account_id,
          r.month, (${MONTHLY_LIMITS_JSON}::jsonb ->> a.plan)::integer as lim
        from jsonb_to_recordset(${JSON.stringify(documents)}::jsonb)
          as r("documentId" uuid, "accountId" uuid, month date)
        join ${accounts} a on a.id = r."accountId"
      ), counted as (
        insert into ${documentReservations} (account_id, month, document_id)
        select account_id, month, document_id from recorded
        on conflict (document_id) where document_id is not null do nothing
        returning document_id
      ), added as (
        insert into ${documentUsage} as u (account_id, month, used)
        select r.account_id, r.month, count(*) from recorded r join counted c using (document_id)
        where r.lim is not null
        group by r.account_id, r.month
        order by r.account_id, r.month
        on conflict (account_id, month) do update set used = u.used + excluded.used
      )
      select count(*) as counted from counted`);
    return Number(result.rows[0]?.counted ?? 0);
  },

  async used(accountId, month) {
    const result = await db.execute<{ used: number | string }>(sql`
      select count(*) as used from ${documentReservations}
      where account_id = ${accountId} and month = ${month}::date and released_at is null`);
    return Number(result.rows[0]?.used ?? 0);
  },
});
