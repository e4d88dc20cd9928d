import type { RGB } from 'pdf-lib';
import type { FontSet } from '../fonts';
import type { Inline } from '../inline';
import { wrapText, type PlacedRun, type TextLine } from '../wrap-text';
import { baselineOf, INK, RULE, type TextStyle } from './page';

/**
 * What composing hands to paginating, and paginating to drawing: things to draw, grouped in items
 * that are never split across pages.
 */

/** Something to draw; coordinates are points from the top-left of the page (y down). */
export type Op =
  | { kind: 'text'; x: number; baseline: number; run: PlacedRun; color: RGB }
  | { kind: 'line'; x1: number; y1: number; x2: number; y2: number; thickness: number; color: RGB };

/** A signature box, in points from the top-left of what holds it. */
export interface SignatureBox {
  x: number;
  y: number;
  width: number;
}

/** A unit of the flow that is never split across pages. Op coordinates are relative to its top. */
export interface FlowItem {
  height: number;
  /** Gap above, dropped at the top of a page. */
  spaceBefore: number;
  /** Keep on the same page as the next item (headings, orphan and widow lines). */
  keepWithNext: boolean;
  ops: Op[];
  /** Drawn first when this item starts a new page (a table's header row). */
  repeatHeader?: FlowItem;
  /** Signature boxes inside this item, relative to its top. */
  signatures?: SignatureBox[];
}

/** Text wrapped to a width in a style. */
export type Wrap = (inline: Inline, width: number, style: TextStyle) => TextLine[];

export const createWrap =
  (fonts: FontSet): Wrap =>
  (inline, width, style) =>
    wrapText(inline, { fonts, size: style.size, width, bold: style.bold ?? false });

/** The runs of a wrapped line, drawn from `x` in a line box whose top is `top`. */
export const lineOps = (line: TextLine, x: number, style: TextStyle, top = 0): Op[] =>
  line.runs.map((run) => ({
    kind: 'text',
    x: x + run.x,
    baseline: top + baselineOf(style),
    run,
    color: style.color ?? INK,
  }));

/** A horizontal line at `y` from `x1` to `x2`. */
export const rule = (x1: number, x2: number, y: number, thickness = 0.6, color = RULE): Op => ({
  kind: 'line',
  x1,
  y1: y,
  x2,
  y2: y,
  thickness,
  color,
});
