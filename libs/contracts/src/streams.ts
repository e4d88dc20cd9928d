/** Name of the JetStream stream that carries durable events (`events.>` except key events). */
export const EVENTS_STREAM = 'EVENTS';
/** Subjects the durable stream captures. */
export const DURABLE_EVENT_SUBJECTS = [
  'events.document.>',
  'events.signing.>',
  'events.envelope.>',
  'events.sign-in.>',
  'events.webhook.>',
];
