/**
 * Random identifiers, from the system's CSPRNG (Node only: `node:crypto`). Their formats are the
 * contracts' (`ZAuditId`, `ZSendId`, `ZWebhookId`, `LIVE_KEY_PREFIX`); this library only makes them.
 */
export * from './random-string';
export * from './base62';
export * from './new-audit-id';
