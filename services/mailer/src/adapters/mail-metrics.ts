import type { Instruments } from '@esign/telemetry';
import type { MailOutcomes } from '../domain/mail-outcomes';

/**
 * The outcomes of emails as `esign.mail.messages` (by kind and outcome) and `esign.mail.delivery.lag`
 * (event published to SMTP accepted). A failure on the last delivery the consumer allows is
 * `dead_lettered` (the bus parks the event after it); an earlier one `retried`. Instruments are
 * created once, here.
 */
export const createMailMetrics = (options: {
  metrics: Pick<Instruments, 'counter' | 'histogram'>;
  /** The consumers' `maxDeliveries` (MAIL_MAX_DELIVERIES). */
  maxDeliveries: number;
  now?: () => number;
}): MailOutcomes => {
  const now = options.now ?? Date.now;
  const messages = options.metrics.counter('mailMessages');
  const lag = options.metrics.histogram('mailDeliveryLag');
  return {
    sent(kind, publishedAt) {
      messages.add(1, { 'esign.mail': kind, 'esign.outcome': 'sent' });
      lag.record(Math.max(0, now() - publishedAt.getTime()) / 1000, { 'esign.mail': kind });
    },
    notSent(kind, outcome) {
      messages.add(1, { 'esign.mail': kind, 'esign.outcome': outcome });
    },
    failed(kind, deliveryCount) {
      const outcome = deliveryCount >= options.maxDeliveries ? 'dead_lettered' : 'retried';
      messages.add(1, { 'esign.mail': kind, 'esign.outcome': outcome });
    },
  };
};
