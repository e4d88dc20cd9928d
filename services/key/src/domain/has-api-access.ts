import { PLAN_LIMITS, type TPlan } from '@esign/contracts';

/** API access is a Business plan feature (interface spec, Authentication 2 and Plans; PLAN_LIMITS). */
export const hasApiAccess = (plan: TPlan): boolean => PLAN_LIMITS[plan].apiAccess;
