import qrcode from 'qrcode-generator';

/** The dark modules of a QR code: `size` × `size`, row 0 at the top. */
export interface QrMatrix {
  readonly size: number;
  isDark(row: number, col: number): boolean;
}

/** A QR code of `text` (byte mode, error correction M, the smallest version that holds it). */
export const qrMatrix = (text: string): QrMatrix => {
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  return { size: qr.getModuleCount(), isDark: (row, col) => qr.isDark(row, col) };
};

const num = (n: number) => String(Math.round(n * 1000) / 1000);

/**
 * PDF content operators that draw the QR code with its bottom-left corner at (x, y), `side` points
 * wide, quiet zone not included: one filled path, each run of dark modules in a row one rectangle.
 */
export const qrOperators = (matrix: QrMatrix, x: number, y: number, side: number): string => {
  const cell = side / matrix.size;
  const ops: string[] = ['q', '0 0 0 rg'];
  for (let row = 0; row < matrix.size; row++) {
    const top = y + side - (row + 1) * cell;
    for (let col = 0; col < matrix.size;) {
      if (!matrix.isDark(row, col)) {
        col++;
        continue;
      }
      const start = col;
      while (col < matrix.size && matrix.isDark(row, col)) col++;
      ops.push(`${num(x + start * cell)} ${num(top)} ${num((col - start) * cell)} ${num(cell)} re`);
    }
  }
  ops.push('f', 'Q');
  return ops.join('\n');
};
