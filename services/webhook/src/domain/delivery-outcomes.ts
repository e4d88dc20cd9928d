/**
 * What became of each delivery attempt, told to whoever counts it (the metrics adapter). `eventType`
 * is the event's type (`document.signed`, `signing.viewed`, …, `webhook.test`): a fixed set in code.
 */
export interface DeliveryOutcomes {
  /** The endpoint answered 2xx; `occurredAt` is the event's time. */
  delivered(eventType: string, occurredAt: Date): void;
  /** The attempt failed: another is scheduled (`retrying`), or none will be made. */
  failed(eventType: string, retrying: boolean): void;
  /** The endpoint was disabled. */
  disabled(reason: 'failing' | 'gone'): void;
}
