import type { z } from 'zod';

/** A request/reply operation: its subject and the schemas both ends validate with. */
export interface RequestContract<Req extends z.ZodType, Rep extends z.ZodType> {
  readonly subject: string;
  readonly request: Req;
  readonly reply: Rep;
}

/** An event: its subject and payload schema. `durable` events go through the JetStream stream. */
export interface EventContract<P extends z.ZodType> {
  readonly subject: string;
  readonly payload: P;
  readonly durable: boolean;
}

export const defineRequest = <Req extends z.ZodType, Rep extends z.ZodType>(
  subject: string,
  request: Req,
  reply: Rep,
): RequestContract<Req, Rep> => ({ subject, request, reply });

export const defineEvent = <P extends z.ZodType>(
  subject: string,
  payload: P,
  options: { durable: boolean },
): EventContract<P> => ({ subject, payload, durable: options.durable });
