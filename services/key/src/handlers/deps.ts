import type { AccountRepository } from '../db/account-repository';
import type { KeyRepository } from '../db/key-repository';
import type { QuotaRepository } from '../db/quota-repository';
import type { SessionRepository } from '../db/session-repository';
import type { Clock, TAccountLifetimes } from '../domain/account-lifetimes';
import type { PasswordHasher } from '../domain/password-hasher';
import type { TKeyRevokedEvent } from '../domain/revoke-key';
import type { TPlan } from '@esign/contracts';

/** Everything the key service's handlers are built from; each handler takes only what it uses. */
export interface KeyServiceDeps {
  readonly keys: KeyRepository;
  readonly accounts: AccountRepository;
  readonly sessions: SessionRepository;
  readonly quotas: QuotaRepository;
  readonly passwords: PasswordHasher;
  readonly config: TAccountLifetimes;
  readonly now: Clock;
  readonly publishRevoked: (event: TKeyRevokedEvent) => Promise<void>;
  /** Tell every gateway that an account's plan changed (they forget its cached keys). */
  readonly publishPlanChanged: (accountId: string, plan: TPlan) => Promise<void>;
}
