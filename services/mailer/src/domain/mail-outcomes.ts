/**
 * What became of each email, told to whoever counts it (the metrics adapter). `kind` is the delivery
 * log's kind (`signing-request`, `reminder`, …): a fixed set in code, never an address.
 */
export interface MailOutcomes {
  /** The SMTP server accepted it; `publishedAt` is when the event that asked for it was published. */
  sent(kind: string, publishedAt: Date): void;
  /** Not sent: it must not be after all (`skipped`), or it was already handled (`duplicate`). */
  notSent(kind: string, outcome: 'skipped' | 'duplicate'): void;
  /** The attempt failed on the event's `deliveryCount`-th delivery (redelivered, or parked after the last). */
  failed(kind: string, deliveryCount: number): void;
}
