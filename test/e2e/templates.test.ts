import { inkAt, inkColorAt, makePng, qpdfCheck, renderPage, runPdfTool } from '@esign/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { auth, baseUrl, createAccount, dataUri, errorOf, sign, type TestAccount } from './harness';

/**
 * Templates end to end through HTTP: list, generate every template, sign the result at the positions
 * the generate response gives, and see the signature inside each signature block.
 */

let account: TestAccount;

beforeAll(async () => {
  account = await createAccount('business');
});

const PAGE_RATIO = 595.28 / 841.89;

/** A complete filling of each template. */
const FILLED: Record<string, Record<string, string>> = {
  nda: {
    partyA: 'Northwind Traders Ltd',
    partyB: 'Jane Roe',
    effectiveDate: '2025-03-01',
    jurisdiction: 'Ontario',
  },
  'freelance-contract': {
    clientName: 'Northwind Traders Ltd',
    freelancerName: 'Maria Silva',
    services: 'a new company logo',
    startDate: '2025-04-01',
    fee: '4800',
    currency: 'EUR',
  },
  'employment-offer': {
    employerName: 'Contoso Analytics Inc.',
    candidateName: 'Jordan Lee',
    jobTitle: 'Data Engineer',
    startDate: '2025-06-02',
    salary: '145000',
  },
  lease: {
    landlordName: 'Harbourview Properties LLC',
    tenantName: 'Alex Morgan',
    propertyAddress: '210 Pine Street, Seattle',
    startDate: '2025-07-01',
    endDate: '2026-06-30',
    monthlyRent: '2350',
  },
  consulting: {
    clientName: 'Northwind Traders Ltd',
    consultantName: 'Priya Raman',
    effectiveDate: '2025-02-10',
    scope: 'supply-chain analytics advice',
    rate: '1200',
    rateUnit: 'per day',
  },
  invoice: {
    invoiceNumber: 'INV-77',
    issueDate: '2025-03-31',
    dueDate: '2025-04-30',
    sellerName: 'Maria Silva Design',
    buyerName: 'Northwind Traders Ltd',
    items: JSON.stringify([{ description: 'Logo design', quantity: 1, unitPrice: '2400' }]),
  },
};

interface Position {
  x: number;
  y: number;
  page: number;
  width: number;
}

const api = (path: string, init: RequestInit & { key?: string | null } = {}) => {
  const { key = account.apiKey, headers, ...rest } = init;
  return fetch(`${baseUrl}${path}`, {
    ...rest,
    headers: { ...(key ? auth(key) : {}), ...(headers as Record<string, string>) },
  });
};

const generate = (body: unknown, contentType = 'application/json') =>
  api('/api/v1/templates/generate', {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const textOf = async (pdf: Uint8Array) => {
  const { stdout } = await runPdfTool('pdftotext', ['-enc', 'UTF-8', '{file}', '-'], pdf);
  return stdout.replace(/\s+/g, ' ');
};

describe('GET /api/v1/templates', () => {
  it('needs an API key', async () => {
    const res = await api('/api/v1/templates', { key: null });
    expect(res.status).toBe(401);
    expect(await errorOf(res)).toMatch(/API key/);
  });

  it('lists the six templates with their fields', async () => {
    const res = await api('/api/v1/templates');
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      templates: {
        slug: string;
        name: string;
        description: string;
        fields: { name: string; type: string; required: boolean }[];
      }[];
    };
    expect(body.templates.map((t) => t.slug)).toEqual(Object.keys(FILLED));
    const nda = body.templates.find((t) => t.slug === 'nda');
    expect(nda?.fields.filter((f) => f.required).map((f) => [f.name, f.type])).toEqual([
      ['partyA', 'text'],
      ['partyB', 'text'],
      ['effectiveDate', 'date'],
    ]);
    expect(nda?.fields.find((f) => f.name === 'jurisdiction')?.required).toBe(false);
  });
});

describe('POST /api/v1/templates/generate', () => {
  it('needs an API key', async () => {
    const res = await api('/api/v1/templates/generate', {
      key: null,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'nda', fields: FILLED.nda }),
    });
    expect(res.status).toBe(401);
  });

  it.each(Object.entries(FILLED))(
    'generates %s, and a signature stamped at the returned positions lands in each signature block',
    async (slug, fields) => {
      const res = await generate({ slug, fields });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toMatch(
        new RegExp(`^attachment; filename="${slug}-[^"]+\\.pdf"`),
      );
      expect(res.headers.get('x-template-slug')).toBe(slug);
      const positions = JSON.parse(res.headers.get('x-signature-positions') ?? 'null') as Position[];
      expect(positions).toHaveLength(2);
      const pdf = Buffer.from(await res.arrayBuffer());
      expect((await qpdfCheck(pdf)).ok).toBe(true);
      const text = await textOf(pdf);
      expect(text).toContain(Object.values(fields)[0] ?? '');

      const signedRes = await sign(account.apiKey, {
        file: { bytes: pdf, name: `${slug}.pdf`, type: 'application/pdf' },
        fields: {
          signatureData: dataUri(await makePng()),
          signerName: 'Jane Roe',
          signerEmail: 'jane@example.com',
          positions: res.headers.get('x-signature-positions') ?? '',
        },
      });
      expect(signedRes.status).toBe(200);
      const signed = Buffer.from(await signedRes.arrayBuffer());

      for (const p of positions) {
        const box = { x: p.x, y: p.y, width: p.width, height: (p.width / 2.5) * PAGE_RATIO };
        const before = await renderPage(pdf, p.page, 72);
        const after = await renderPage(signed, p.page, 72);
        // Empty paper before, the signature's ink after: inside the block's signature area.
        expect(inkAt(before, box)).toBe(0);
        expect(inkAt(after, box)).toBeGreaterThan(0.02);
        const [r, , b] = inkColorAt(after, box) ?? [0, 0, 0];
        expect(b).toBeGreaterThan(r + 40);
      }
    },
  );

  it.each([
    ['an unknown slug', { slug: 'will', fields: {} }, 404, /unknown template "will"/],
    [
      'a missing required field',
      { slug: 'nda', fields: { partyA: 'A', effectiveDate: '2025-03-01' } },
      400,
      /partyB/,
    ],
    [
      'a date that does not exist',
      { slug: 'nda', fields: { ...FILLED.nda, effectiveDate: '2025-02-30' } },
      400,
      /effectiveDate/,
    ],
    [
      'a negative amount',
      { slug: 'lease', fields: { ...FILLED.lease, monthlyRent: '-2350' } },
      400,
      /monthlyRent/,
    ],
    ['an unknown field', { slug: 'nda', fields: { ...FILLED.nda, colour: 'blue' } }, 400, /fields\.colour/],
    [
      'a value that is not a string',
      { slug: 'nda', fields: { ...FILLED.nda, partyA: { name: 'A' } } },
      400,
      /fields\.partyA/,
    ],
    ['fields that are not an object', { slug: 'nda', fields: 'partyA=A' }, 400, /fields/],
    ['no slug', { fields: FILLED.nda }, 400, /slug/],
    ['a body that is not an object', [], 400, /JSON object/],
    ['a body that is not JSON', '{"slug": "nda",', 400, /JSON/],
  ])('answers %s with %i naming the problem', async (_case, body, status, message) => {
    const res = await generate(body);
    expect(res.status).toBe(status);
    expect(await errorOf(res)).toMatch(message);
  });

  it('answers a request that is not JSON with 400', async () => {
    const res = await generate('slug=nda', 'application/x-www-form-urlencoded');
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatch(/Content-Type must be application\/json/);
  });
});
