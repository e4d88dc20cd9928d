import type { WebhookStore } from '../db/store';
import type { TargetPolicy } from '../domain/check-endpoint-url';
import type { Clock } from '../domain/clock';
import type { SecretBox } from '../domain/secret-box';

/** Everything the webhook service's handlers are built from; each handler takes only what it uses. */
export interface WebhookServiceDeps {
  readonly store: WebhookStore;
  /** Seals and opens endpoint secrets (WEBHOOK_SECRET_KEY). */
  readonly secrets: SecretBox;
  /** Where endpoints may point (the SSRF rules, WEBHOOK_ALLOW_NETWORKS). */
  readonly targets: TargetPolicy;
  readonly now: Clock;
  /** A delivery was queued: the delivery loop looks for due ones at once. */
  readonly onQueued: () => void;
}
