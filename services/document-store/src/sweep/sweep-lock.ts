import type pg from 'pg';

/**
 * Run `work` while holding the session advisory lock `name` on one pooled connection (given to
 * `work`), so that replicas take turns: the lock is tried, never waited for, and `undefined` answers a
 * run another replica is making. The lock is released and the connection given back whatever `work`
 * does.
 */
export const whileHoldingLock = async <T>(
  pool: pg.Pool,
  name: string,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T | undefined> => {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock(hashtext($1)) as ok', [
      name,
    ]);
    if (!rows[0]?.ok) return undefined;
    try {
      return await work(client);
    } finally {
      await client.query('select pg_advisory_unlock(hashtext($1))', [name]);
    }
  } finally {
    client.release();
  }
};
