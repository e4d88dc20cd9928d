import type { TPlan } from './common';

/** What a plan allows. The one table of plan limits: the key service and the gateway both read it. */
export interface PlanLimits {
  /** Documents that may be created per calendar month (UTC); `null` is unlimited. */
  readonly documentsPerMonth: number | null;
  /** Whether the account's API keys may call `/api/v1` (a Business plan feature). */
  readonly apiAccess: boolean;
  /** Largest file a document may be made from, in bytes. */
  readonly maxFileBytes: number;
}

const MiB = 1024 * 1024;

/** The interface spec's plan table (Limits, Plans). Sizes are binary megabytes, as the gateway's 25 MB cap. */
export const PLAN_LIMITS: Readonly<Record<TPlan, PlanLimits>> = {
  free: { documentsPerMonth: 3, apiAccess: false, maxFileBytes: 10 * MiB },
  pro: { documentsPerMonth: 50, apiAccess: false, maxFileBytes: 25 * MiB },
  business: { documentsPerMonth: null, apiAccess: true, maxFileBytes: 25 * MiB },
};
