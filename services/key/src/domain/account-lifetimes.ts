import type { TAccountConfig } from '../config';

/** The parts of the configuration that sessions, sign-in tokens and attempts follow. */
export type TAccountLifetimes = Pick<
  TAccountConfig,
  | 'SESSION_IDLE_TIMEOUT_MS'
  | 'SESSION_ABSOLUTE_TIMEOUT_MS'
  | 'SESSION_TOUCH_INTERVAL_MS'
  | 'SIGN_IN_TOKEN_TTL_MS'
  | 'SIGN_IN_MAX_ATTEMPTS'
  | 'SIGN_IN_ATTEMPT_WINDOW_MS'
  | 'SIGN_IN_LINK_MAX_PER_EMAIL'
  | 'SIGN_IN_LINK_WINDOW_MS'
>;

/** The service's clock; tests pass one they can move. */
export type Clock = () => Date;
