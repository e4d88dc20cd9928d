import { PDFDocument, degrees } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { pageFrameOf, placeBox } from './page-frame';
import type { Matrix } from './page-frame';

const apply = (m: Matrix, x: number, y: number) => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];

const framed = async (options: { rotate?: number; crop?: [number, number, number, number] }) => {
  const doc = await PDFDocument.create();
  const page = doc.addPage([600, 800]);
  if (options.rotate) page.setRotation(degrees(options.rotate));
  if (options.crop) page.setCropBox(...options.crop);
  return pageFrameOf(page);
};

describe('pageFrameOf', () => {
  it('maps the visible top-left corner and the box axes for every rotation', async () => {
    const box = { x: 10, y: 20, width: 100, height: 50 };
    // Where the box's visible bottom-left corner lands in user space, and where its x axis points.
    const expected: Record<number, { size: [number, number]; origin: number[]; xAxis: number[] }> = {
      0: { size: [600, 800], origin: [10, 800 - 70], xAxis: [1, 0] },
      90: { size: [800, 600], origin: [70, 10], xAxis: [0, 1] },
      180: { size: [600, 800], origin: [600 - 10, 70], xAxis: [-1, 0] },
      270: { size: [800, 600], origin: [600 - 70, 800 - 10], xAxis: [0, -1] },
    };
    for (const rotate of [0, 90, 180, 270]) {
      const frame = await framed({ rotate });
      const want = expected[rotate];
      expect([frame.width, frame.height]).toEqual(want?.size);
      const m = frame.boxMatrix(box);
      expect(apply(m, 0, 0)).toEqual(want?.origin);
      const [ox = 0, oy = 0] = apply(m, 0, 0);
      const [px = 0, py = 0] = apply(m, 1, 0);
      expect([px - ox, py - oy].map((v) => Math.round(v))).toEqual(want?.xAxis);
    }
  });

  it('measures inside a crop box that does not start at 0,0, and normalises odd rotations', async () => {
    const frame = await framed({ crop: [100, 200, 300, 400] });
    expect([frame.width, frame.height]).toEqual([300, 400]);
    expect(apply(frame.boxMatrix({ x: 0, y: 0, width: 10, height: 10 }), 0, 0)).toEqual([100, 600 - 10]);
    expect((await framed({ rotate: -90 })).rotate).toBe(270);
    expect((await framed({ rotate: 450 })).rotate).toBe(90);
  });
});

describe('placeBox', () => {
  const frame = { width: 600, height: 800, rotate: 0 as const, boxMatrix: () => [1, 0, 0, 1, 0, 0] as const };

  it('sizes the box from the width percentage and the aspect ratio', () => {
    expect(placeBox(frame, { x: 10, y: 20, page: 0, width: 25 }, 0.5)).toEqual({
      x: 60,
      y: 160,
      width: 150,
      height: 75,
    });
  });

  it('moves a box that crosses the right or bottom edge back inside', () => {
    expect(placeBox(frame, { x: 95, y: 99, page: 0, width: 50 }, 0.5)).toEqual({
      x: 300,
      y: 650,
      width: 300,
      height: 150,
    });
  });

  it('shrinks a box taller than the page to the page height', () => {
    expect(placeBox(frame, { x: 0, y: 0, page: 0, width: 60 }, 3)).toEqual({
      x: 0,
      y: 0,
      width: 800 / 3,
      height: 800,
    });
  });
});
