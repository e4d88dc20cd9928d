import {
  context,
  propagation,
  type Context,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { headers as natsHeaders, type MsgHdrs } from 'nats';

// W3C trace context travels in NATS headers, never in message bodies.
const setter: TextMapSetter<MsgHdrs> = { set: (carrier, key, value) => carrier.set(key, value) };
const getter: TextMapGetter<MsgHdrs | undefined> = {
  get: (carrier, key) => carrier?.get(key) || undefined,
  keys: (carrier) => (carrier ? carrier.keys() : []),
};

/** Headers carrying the active trace context. */
export const injectTraceContext = (ctx: Context = context.active()): MsgHdrs => {
  const hdrs = natsHeaders();
  propagation.inject(ctx, hdrs, setter);
  return hdrs;
};

/** The trace context a message carries, as the parent for the span that handles it. */
export const extractTraceContext = (hdrs: MsgHdrs | undefined): Context =>
  propagation.extract(context.active(), hdrs, getter);
