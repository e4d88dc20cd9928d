import type { TAccountKey } from '@esign/contracts';
import type { KeyRepository } from '../db/key-repository';

/** The account's keys for the dashboard: id, name, display prefix, dates; never the key or its hash. */
export const listAccountKeys = async (options: {
  keys: KeyRepository;
  accountId: string;
}): Promise<{ keys: TAccountKey[] }> => {
  const rows = await options.keys.listKeys(options.accountId);
  return {
    keys: rows.map((row) => ({
      keyId: row.keyId,
      name: row.label,
      keyPrefix: row.prefix,
      createdAt: row.createdAt.toISOString(),
      lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
      revoked: row.revokedAt !== null,
      revokedAt: row.revokedAt?.toISOString() ?? null,
    })),
  };
};
