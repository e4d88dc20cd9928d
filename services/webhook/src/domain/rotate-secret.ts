import type { WebhookStore } from '../db/store';
import { findOwnedEndpoint } from './find-owned-endpoint';
import type { SecretBox } from './secret-box';
import { newWebhookSecret } from './signature';

/**
 * A new secret, answered once. With an overlap the current secret becomes the previous one and keeps
 * signing until then (a rotation during an overlap ends the older overlap); without, it ends at once.
 */
export const rotateSecret = async (options: {
  store: WebhookStore;
  secrets: SecretBox;
  now: Date;
  accountId: string;
  webhookId: string;
  overlapHours: number;
}): Promise<{ secret: string; previousSecretExpiresAt: string | null }> => {
  const row = await findOwnedEndpoint(options);
  const secret = newWebhookSecret();
  const expiresAt =
    options.overlapHours > 0 ? new Date(options.now.getTime() + options.overlapHours * 3600_000) : null;
  await options.store.updateEndpoint(options.accountId, row.id, {
    secret: options.secrets.seal(secret, row.id),
    previousSecret: expiresAt ? row.secret : null,
    previousSecretExpiresAt: expiresAt,
  });
  return { secret, previousSecretExpiresAt: expiresAt ? expiresAt.toISOString() : null };
};
