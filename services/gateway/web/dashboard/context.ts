import type { Session } from './api';
import type { Route } from './router';

/** What a view gets: where to draw, the route, the session, and a way to refresh it. */
export interface ViewContext {
  readonly main: HTMLElement;
  readonly route: Route;
  readonly session: Session;
  /** Reload the session (plan and usage change after a signing). */
  refreshSession(): Promise<Session | undefined>;
  /** Signed in: remember the session and go to a view. */
  signedIn(session: Session, to?: string): void;
}

/** A view draws itself into `context.main`; the entry module picks one per route. */
export type View = (context: ViewContext) => Promise<void> | void;
