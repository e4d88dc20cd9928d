import type { TTemplateFieldType } from '@esign/contracts';
import type { FilledFields } from './filled-fields';
import type { Inline } from './inline';

/** A fillable field: what the list endpoint shows, plus bounds the validator applies. */
export interface FieldSpec {
  readonly name: string;
  readonly label: string;
  readonly type: TTemplateFieldType;
  readonly required: boolean;
  /** Inclusive bounds of an `integer` field. */
  readonly min?: number;
  readonly max?: number;
}

/** A numbered clause's body: paragraphs (numbered n.1, n.2 when there are several) and lettered lists. */
export type ClauseBody = Inline | { readonly list: readonly Inline[] };

export interface TableColumn {
  readonly header: string;
  /** Share of the content width. */
  readonly width: number;
  readonly align: 'left' | 'right';
}

/** What a document is made of, top to bottom. The renderer lays out any of these. */
export type Block =
  | { readonly kind: 'paragraph'; readonly text: Inline }
  | { readonly kind: 'clause'; readonly heading: string; readonly body: readonly ClauseBody[] }
  | { readonly kind: 'details'; readonly rows: readonly { label: string; value: Inline }[] }
  | {
      readonly kind: 'table';
      readonly columns: readonly TableColumn[];
      readonly rows: readonly (readonly Inline[])[];
      readonly totals: readonly { label: string; value: Inline; strong?: boolean }[];
    };

/** A party who signs: a signature block with a line for the signature and the lines below it. */
export interface SignatureParty {
  /** What the party is in this document ("Landlord"). */
  readonly role: string;
  /** The party's name as filled in. */
  readonly name: string;
  /** Lines to complete by hand under the signature ("Name", "Title", "Date"). */
  readonly lines: readonly string[];
}

/** A filled template, ready to be laid out. */
export interface ComposedDocument {
  readonly title: string;
  readonly subtitle?: Inline;
  readonly blocks: readonly Block[];
  readonly signatures: { readonly intro: Inline; readonly parties: readonly SignatureParty[] };
}

/** A template: its data (slug, name, fields) and its text, in one file under src/templates. */
export interface TemplateDefinition {
  readonly slug: string;
  readonly name: string;
  readonly description: string;
  readonly fields: readonly FieldSpec[];
  /** A complete, valid filling: shown in the docs, used by tests and to warm up the renderer. */
  readonly example: Readonly<Record<string, string>>;
  /** Checks across fields (an end date after a start date); throws `invalid_argument` naming the field. */
  readonly check?: (fields: FilledFields) => void;
  /** File name of the generated PDF, without `.pdf` (sanitised by the caller). */
  readonly fileName: (fields: FilledFields) => string;
  readonly compose: (fields: FilledFields) => ComposedDocument;
}
