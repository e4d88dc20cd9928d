import { rgb, type RGB } from 'pdf-lib';

/** The page every template is laid out on, and the type and colours drawn on it. */

/** A4 in points. */
export const PAGE_WIDTH = 595.28;
export const PAGE_HEIGHT = 841.89;
export const MARGIN = { left: 64, right: 64, top: 64, bottom: 72 } as const;
export const CONTENT_WIDTH = PAGE_WIDTH - MARGIN.left - MARGIN.right;
export const INDENT = 28;

export const INK = rgb(0.11, 0.11, 0.13);
export const MUTED = rgb(0.38, 0.38, 0.42);
export const RULE = rgb(0.78, 0.78, 0.8);

export interface TextStyle {
  readonly size: number;
  readonly leading: number;
  readonly bold?: boolean;
  readonly color?: RGB;
}
export const BODY: TextStyle = { size: 10, leading: 14.5 };
export const HEADING: TextStyle = { size: 11, leading: 16, bold: true };
export const TITLE: TextStyle = { size: 18, leading: 24, bold: true };
export const SMALL: TextStyle = { size: 8.5, leading: 12, color: MUTED };

/** Where a line of `style` sits below the top of its line box. */
export const baselineOf = (style: TextStyle) => style.leading / 2 + style.size * 0.35;
