import type { Logger } from '@esign/telemetry';
import type { MailTransport } from '../adapters/smtp-transport';
import type { DeliveryRepository } from '../db/delivery-repository';

/** What every email handler uses: the delivery log, the transport and the log. */
export interface DeliveryDeps {
  readonly deliveries: DeliveryRepository;
  readonly transport: MailTransport;
  readonly logger: Logger;
}
