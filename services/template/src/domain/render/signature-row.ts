import { plain } from '../inline';
import type { SignatureParty } from '../template';
import { lineOps, rule, type FlowItem, type Op, type SignatureBox, type Wrap } from './flow';
import { baselineOf, CONTENT_WIDTH, INK, MARGIN, MUTED, SMALL, type TextStyle } from './page';

/** Height of the empty area above each signature line. */
export const SIGNATURE_AREA_HEIGHT = 66;
/** Room left between the signature box and the edges of its area. */
const SIGNATURE_INSET = 3;
/**
 * A signature is stamped `width` wide with its own aspect ratio; drawn signatures are about 3:1 and
 * rarely taller than 2.5:1, so a box of (area height - insets) x 2.5 fits the area.
 */
const SIGNATURE_WIDTH = Math.min((SIGNATURE_AREA_HEIGHT - 2 * SIGNATURE_INSET) * 2.5, 200);
/** Lines of a party's name shown in its signature block (the full name is in the text). */
const MAX_NAME_LINES = 4;

/**
 * Two signature blocks a row; each has the party, an empty area over a line, and lines to fill.
 * The empty areas are where the signatures are stamped: the item carries their boxes.
 */
export const composeSignatureRow = (wrap: Wrap, parties: readonly SignatureParty[]): FlowItem => {
  const gap = 28;
  const columnWidth = (CONTENT_WIDTH - gap) / 2;
  const roleStyle: TextStyle = { size: 8.5, leading: 12, bold: true, color: MUTED };
  const nameStyle: TextStyle = { size: 10.5, leading: 14, bold: true };
  const fieldStyle: TextStyle = { size: 9, leading: 20, color: MUTED };
  const names = parties.map((p) => {
    const lines = wrap(plain(p.name), columnWidth, nameStyle);
    if (lines.length <= MAX_NAME_LINES) return lines;
    const kept = lines.slice(0, MAX_NAME_LINES - 1);
    const last = wrap(plain('…'), columnWidth, nameStyle);
    return [...kept, ...last];
  });
  const roleHeight =
    Math.max(...parties.map((p) => wrap(plain(p.role.toUpperCase()), columnWidth, roleStyle).length)) *
    roleStyle.leading;
  const nameHeight = Math.max(...names.map((n) => n.length)) * nameStyle.leading;
  const areaTop = roleHeight + nameHeight + 4;
  const lineY = areaTop + SIGNATURE_AREA_HEIGHT;
  const maxFields = Math.max(...parties.map((p) => p.lines.length));
  const height = lineY + 14 + maxFields * fieldStyle.leading;
  const ops: Op[] = [];
  const signatures: SignatureBox[] = [];
  parties.forEach((party, i) => {
    const x = MARGIN.left + i * (columnWidth + gap);
    wrap(plain(party.role.toUpperCase()), columnWidth, roleStyle).forEach((l, k) =>
      ops.push(...lineOps(l, x, roleStyle, k * roleStyle.leading)),
    );
    (names[i] ?? []).forEach((l, k) =>
      ops.push(...lineOps(l, x, nameStyle, roleHeight + k * nameStyle.leading)),
    );
    ops.push(rule(x, x + columnWidth, lineY, 0.9, INK));
    const caption = wrap(plain('Signature'), columnWidth, SMALL);
    caption.forEach((l) => ops.push(...lineOps(l, x, SMALL, lineY + 1)));
    party.lines.forEach((field, k) => {
      const top = lineY + 14 + k * fieldStyle.leading;
      const [fieldLine] = wrap(plain(`${field}:`), 60, fieldStyle);
      if (fieldLine) ops.push(...lineOps(fieldLine, x, fieldStyle, top));
      ops.push(rule(x + 44, x + columnWidth, top + baselineOf(fieldStyle) + 2, 0.6, MUTED));
    });
    signatures.push({
      x: x + SIGNATURE_INSET,
      y: areaTop + SIGNATURE_INSET,
      width: Math.min(SIGNATURE_WIDTH, columnWidth - 2 * SIGNATURE_INSET),
    });
  });
  return { height, spaceBefore: 16, keepWithNext: false, ops, signatures };
};
