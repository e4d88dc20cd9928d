import type { TPlan } from '@esign/contracts';

/** API access is a Business plan feature (interface spec, Authentication 2 and Plans). */
export const hasApiAccess = (plan: TPlan): boolean => plan === 'business';
