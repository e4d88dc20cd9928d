import type { FilledFields } from '../../domain/filled-fields';
import { t, type Inline } from '../../domain/inline';

/** A party as filled in through `partyFields`. */
export interface Party {
  readonly name: string;
  readonly address: string | undefined;
}

/** The party whose fields are `<key>Name` and `<key>Address`. */
export const partyOf = (fields: FilledFields, key: string): Party => ({
  name: fields.req(`${key}Name`),
  address: fields.opt(`${key}Address`),
});

/** The party's name, followed by its address when there is one: "Acme Ltd of 1 High Street". */
export const nameAndAddress = (party: Party, separator: ' of ' | ', ' = ' of '): Inline =>
  t`${party.name}${party.address ? [{ text: separator }, ...t`${party.address}`] : []}`;

/** Lines under the signature of someone who signs for an organisation. */
export const SIGNS_FOR_AN_ORGANISATION: readonly string[] = ['Name', 'Title', 'Date'];
/** Lines under the signature of someone who signs for themselves. */
export const SIGNS_IN_PERSON: readonly string[] = ['Date'];
