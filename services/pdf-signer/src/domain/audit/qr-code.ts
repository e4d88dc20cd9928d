import QRCode from 'qrcode';

/** The dark modules of a QR code: `size` × `size`, row 0 at the top. */
export interface QrMatrix {
  readonly size: number;
  isDark(row: number, col: number): boolean;
}

/**
 * A QR code of `text` (byte mode, error correction M, the smallest version that holds it). The mask
 * is fixed: choosing the best of the eight by their penalty scores cost 1.2 ms of CPU per code (the
 * largest part of a sign's audit page), and every mask gives a valid code that readers decode.
 */
export const qrMatrix = (text: string): QrMatrix => {
  const { modules } = QRCode.create([{ data: Buffer.from(text, 'utf8'), mode: 'byte' }], {
    errorCorrectionLevel: 'M',
    maskPattern: 0,
  });
  const { size, data } = modules;
  return { size, isDark: (row, col) => data[row * size + col] === 1 };
};

/**
 * The code as a 1-bit DeviceGray image (dark modules 0, rows padded to whole bytes): a few hundred
 * bytes, where drawing each run of modules as a rectangle made a 10 KB content stream to compress
 * and hash on every sign. Drawn unscaled-smooth (/Interpolate false) by readers and printers.
 */
export const qrImage = (matrix: QrMatrix): { bytes: Uint8Array; width: number; height: number } => {
  const rowBytes = Math.ceil(matrix.size / 8);
  const bytes = new Uint8Array(rowBytes * matrix.size).fill(0xff);
  for (let row = 0; row < matrix.size; row++) {
    for (let col = 0; col < matrix.size; col++) {
      if (matrix.isDark(row, col)) {
        const at = row * rowBytes + (col >> 3);
        bytes[at] = (bytes[at] ?? 0) & ~(0x80 >> (col & 7));
      }
    }
  }
  return { bytes, width: matrix.size, height: matrix.size };
};
