import type { Instruments } from '@esign/telemetry';
import type { DeliveryOutcomes } from '../domain/delivery-outcomes';

/**
 * Delivery outcomes as `esign.webhook.deliveries` (by event type and outcome: `delivered`, `retried`,
 * `dead_lettered`), `esign.webhook.delivery.lag` (event time to 2xx) and
 * `esign.webhook.endpoints.disabled` (by reason). Instruments are created once, here. `now` is real
 * time: a lag is a duration operators see, not the schedule's (test) clock.
 */
export const createDeliveryMetrics = (options: {
  metrics: Pick<Instruments, 'counter' | 'histogram'>;
  now?: () => number;
}): DeliveryOutcomes => {
  const now = options.now ?? Date.now;
  const deliveries = options.metrics.counter('webhookDeliveries');
  const lag = options.metrics.histogram('webhookDeliveryLag');
  const disabled = options.metrics.counter('webhookEndpointsDisabled');
  return {
    delivered(eventType, occurredAt) {
      deliveries.add(1, { 'esign.event': eventType, 'esign.outcome': 'delivered' });
      lag.record(Math.max(0, now() - occurredAt.getTime()) / 1000, { 'esign.event': eventType });
    },
    failed(eventType, retrying) {
      deliveries.add(1, {
        'esign.event': eventType,
        'esign.outcome': retrying ? 'retried' : 'dead_lettered',
      });
    },
    disabled(reason) {
      disabled.add(1, { 'esign.reason': reason });
    },
  };
};
