import type { Logger } from '@esign/telemetry';
import type { MailTransport } from '../adapters/smtp-transport';
import type { DeliveryRepository } from '../db/delivery-repository';
import type { MailOutcomes } from '../domain/mail-outcomes';

/** What every email handler uses: the delivery log, the transport, the log and the outcome counts. */
export interface DeliveryDeps {
  readonly deliveries: DeliveryRepository;
  readonly transport: MailTransport;
  readonly logger: Logger;
  readonly outcomes: MailOutcomes;
}
