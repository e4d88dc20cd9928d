/** A piece of text with one style. Filled values are bold so that a reader sees what was filled in. */
export interface Span {
  readonly text: string;
  readonly bold?: boolean;
}

/** Text with inline styling: a paragraph, a table cell, a heading. */
export type Inline = readonly Span[];

/**
 * Contract text with filled values: `t\`made on ${date} between ${partyA}\``. Interpolated strings are
 * filled values (drawn bold); interpolated `Inline`s are spliced in as they are.
 */
export const t = (strings: TemplateStringsArray, ...values: (string | Inline)[]): Span[] => {
  const spans: Span[] = [];
  strings.forEach((text, i) => {
    if (text) spans.push({ text });
    const value = values[i];
    if (value === undefined) return;
    if (typeof value === 'string') spans.push({ text: value, bold: true });
    else spans.push(...value);
  });
  return spans;
};

/** Text without filled values. */
export const plain = (text: string): Span[] => [{ text }];

/** Text in bold. */
export const bold = (text: string): Span[] => [{ text, bold: true }];

/** The characters of an inline, without styling. */
export const inlineText = (inline: Inline): string => inline.map((s) => s.text).join('');
