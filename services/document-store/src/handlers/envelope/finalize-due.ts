import type { EventHandler } from '@esign/bus';
import type { EnvelopeFinalizeDue } from '@esign/contracts';
import { finalizeEnvelope, type FinalizeDeps } from '../../domain/envelope/finalize-envelope';

/**
 * `events.envelope.finalize-due` (durable, document-store's own): seal and record the envelope's
 * document. Resolving acks (also for an envelope completed already); a failure is redelivered.
 * Wakes the outbox relay after the commit.
 */
export const finalizeDueHandler =
  (deps: FinalizeDeps & { onWritten: () => void }): EventHandler<typeof EnvelopeFinalizeDue> =>
  async (event, ctx) => {
    const completed = await finalizeEnvelope(deps, event);
    if (completed) {
      deps.onWritten();
      ctx.logger.info('envelope completed', { envelopeId: event.envelopeId });
    }
  };
