import type { ResolveSchema } from './scripts';
import {
  isRecord,
  jsonContent,
  normalise,
  type ReadOperation,
  type TOperation,
  type TParameter,
} from './document';

// Values carried from one request to the next (see collection.ts).

export interface Carry {
  /** The collection variable (the consuming parameter's name). */
  readonly variable: string;
  /** The script expression that reads it from the producer's response. */
  readonly from: string;
  /** Read from the first item of a list in the body: used only when no operation offers it on top. */
  readonly nested?: true;
}

/** Parameters (path, or required query) that a carried value can fill. */
export const fillableParameters = (op: TOperation): TParameter[] =>
  op.parameters.filter((p) => p.in === 'path' || (p.in === 'query' && p.required === true));

export const producedBy = (
  read: ReadOperation,
  wanted: ReadonlyMap<string, string>,
  resolve: ResolveSchema,
): Carry[] => {
  const carries = new Map<string, Carry>();
  const headers = read.success?.response.headers ?? {};
  for (const name of Object.keys(headers)) {
    const variable = wanted.get(normalise(name));
    if (variable)
      carries.set(variable, { variable, from: `pm.response.headers.get(${JSON.stringify(name)})` });
  }
  const schema = jsonContent(read.success?.response)?.schema;
  const body = schema ? resolve(schema) : undefined;
  if (body && isRecord(body.properties)) {
    for (const name of Object.keys(body.properties)) {
      const variable = wanted.get(normalise(name));
      if (variable && !carries.has(variable)) {
        carries.set(variable, { variable, from: `pm.response.json()[${JSON.stringify(name)}]` });
      }
    }
    // A value of the first item of a list in the body (an envelope's `recipients[0].recipientId`).
    for (const [list, property] of Object.entries(body.properties)) {
      const items = isRecord(property) ? resolve(property).items : undefined;
      const item = isRecord(items) ? resolve(items) : undefined;
      if (!item || !isRecord(item.properties)) continue;
      for (const name of Object.keys(item.properties)) {
        const variable = wanted.get(normalise(name));
        if (variable && !carries.has(variable)) {
          carries.set(variable, {
            variable,
            from: `pm.response.json()[${JSON.stringify(list)}][0][${JSON.stringify(name)}]`,
            nested: true,
          });
        }
      }
    }
  }
  return [...carries.values()];
};

/**
 * Which values each request carries on and which it takes: a value goes from an operation to another
 * under the same security scheme, or from the collection's main scheme into a public operation (a
 * public check of an audit ID). `needs(a, b)`: `a` takes a value `b` makes, so `b` runs first.
 */
export const planCarries = (
  reads: readonly ReadOperation[],
  collectionScheme: string | undefined,
  resolve: ResolveSchema,
) => {
  // Which parameters a value can be carried into, and which operations produce it: the same scheme, or
  // into a public operation (no scheme) from the collection's main scheme (a public check of an audit ID).
  const carriesOf = new Map<ReadOperation, Carry[]>();
  const carriedInto = new Map<ReadOperation, Map<string, string>>();
  /** Which producers each consumer takes values from. */
  const fedBy = new Map<ReadOperation, Set<ReadOperation>>();
  const offersTo = new Map<ReadOperation, Map<string, { producer: ReadOperation; carry: Carry }[]>>();
  for (const consumer of reads) {
    const wanted = new Map(fillableParameters(consumer.op).map((p) => [normalise(p.name), p.name]));
    const offers = new Map<string, { producer: ReadOperation; carry: Carry }[]>();
    for (const producer of reads) {
      const carries = consumer.scheme
        ? producer.scheme === consumer.scheme
        : producer.scheme !== undefined && producer.scheme === collectionScheme;
      if (producer === consumer || !carries) continue;
      for (const carry of producedBy(producer, wanted, resolve)) {
        offers.set(carry.variable, [...(offers.get(carry.variable) ?? []), { producer, carry }]);
      }
    }
    // A value read from a list's first item only where no operation offers it on top of its body.
    for (const [variable, list] of offers) {
      const onTop = list.filter((offer) => offer.carry.nested !== true);
      if (onTop.length) offers.set(variable, onTop);
    }
    offersTo.set(consumer, offers);
  }
  // Two resources can name a value alike (a signed document's auditId and a send's): a value a
  // resource makes and uses itself stays in that resource; a consumer takes a value from its own
  // resource when it makes one, else from every other operation that makes it.
  const keptHome = new Set<string>();
  for (const [consumer, offers] of offersTo) {
    for (const [variable, list] of offers) {
      for (const { producer } of list) {
        if (producer.tag === consumer.tag) keptHome.add(`${producer.op.operationId} ${variable}`);
      }
    }
  }
  for (const [consumer, offers] of offersTo) {
    for (const [variable, list] of offers) {
      const own = list.filter((offer) => offer.producer.tag === consumer.tag);
      const away = list.filter((offer) => !keptHome.has(`${offer.producer.op.operationId} ${variable}`));
      // Into a public operation, the first operation that makes it (a public check takes a signed
      // document's audit ID, not an envelope's, which names no document until the envelope completes).
      const from = own.length ? own : away.length ? (consumer.scheme ? away : away.slice(0, 1)) : list;
      for (const { producer, carry } of from) {
        const carries = carriesOf.get(producer) ?? [];
        if (!carries.some((c) => c.variable === carry.variable)) carries.push(carry);
        carriesOf.set(producer, carries);
        const into = carriedInto.get(consumer) ?? new Map<string, string>();
        into.set(carry.variable, carry.variable);
        carriedInto.set(consumer, into);
        fedBy.set(consumer, (fedBy.get(consumer) ?? new Set()).add(producer));
      }
    }
  }
  const needs = (a: ReadOperation, b: ReadOperation) => fedBy.get(a)?.has(b) === true;
  return { carriesOf, carriedInto, needs };
};
