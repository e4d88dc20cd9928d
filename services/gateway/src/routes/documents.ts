import express, { type Router } from 'express';
import { DocumentGet, DocumentList, ServiceError, ZAuditId, ZDocumentSort } from '@esign/contracts';
import { z } from 'zod';
import type { GatewayDeps } from '../deps';
import { principalOf } from '../http/auth';
import { parseOrThrow } from '../http/validation';

const DAY_MS = 24 * 60 * 60 * 1000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

const intParam = (name: string, min: number, max: number) => {
  const error = `${name} must be an integer from ${min} to ${max}`;
  return z.preprocess(
    (v) => (typeof v === 'string' ? Number(v) : v),
    z.number({ error }).int(error).min(min, error).max(max, error),
  );
};

/** A real calendar date (2026-02-30 is not), as a whole UTC day or inside a date-time. */
const isRealDate = (v: string) => {
  const day = v.slice(0, 10);
  const t = Date.parse(`${day}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === day;
};

/** A date (whole UTC day) or a date-time; both bounds are inclusive. */
const dateParam = (name: string) => {
  const error = `${name} must be an ISO date (YYYY-MM-DD) or date-time`;
  return z
    .string({ error })
    .refine(
      (v) => (ISO_DATE.test(v) || z.iso.datetime({ offset: true }).safeParse(v).success) && isRealDate(v),
      {
        message: error,
      },
    );
};

export const ZListDocumentsQuery = z.object({
  page: intParam('page', 1, 1_000_000).default(1),
  limit: intParam('limit', 1, 100).default(20),
  search: z.string().max(200, 'search must be at most 200 characters').optional(),
  dateFrom: dateParam('dateFrom').optional(),
  dateTo: dateParam('dateTo').optional(),
  sortBy: ZDocumentSort.default('signed_at'),
  sortDir: z.enum(['asc', 'desc'], { error: 'sortDir must be asc or desc' }).default('desc'),
});

const single = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);

/** GET /api/v1/documents and GET /api/v1/documents/:auditId (Bearer key, account-scoped). */
export const documentsRouter = (deps: GatewayDeps): Router => {
  const router = express.Router();

  router.get('/documents', async (req, res) => {
    const raw = Object.fromEntries(
      Object.entries(req.query)
        .map(([k, v]): [string, unknown] => [k, single(v)])
        .filter(([, v]) => v !== ''),
    );
    const sortBy = raw.sortBy;
    if (sortBy !== undefined && !ZDocumentSort.safeParse(sortBy).success) {
      throw new ServiceError(
        'invalid_argument',
        'sortBy must be signed_at, file_name or created_at',
        'sortBy',
      );
    }
    const q = parseOrThrow(ZListDocumentsQuery, raw);
    const signedFrom = q.dateFrom ? new Date(Date.parse(q.dateFrom)).toISOString() : undefined;
    const signedBefore = q.dateTo
      ? new Date(Date.parse(q.dateTo) + (ISO_DATE.test(q.dateTo) ? DAY_MS : 1)).toISOString()
      : undefined;
    if (signedFrom && signedBefore && signedFrom >= signedBefore) {
      throw new ServiceError('invalid_argument', 'dateFrom must not be after dateTo', 'dateFrom');
    }
    const result = await deps.bus.request(DocumentList, {
      accountId: principalOf(res).accountId,
      page: q.page,
      limit: q.limit,
      search: q.search,
      signedFrom,
      signedBefore,
      sortBy: q.sortBy,
      sortDir: q.sortDir,
    });
    res.json(result);
  });

  router.get('/documents/:auditId', async (req, res) => {
    const auditId = req.params.auditId ?? '';
    if (!ZAuditId.safeParse(auditId).success) {
      throw new ServiceError('not_found', `No document with audit ID ${auditId.slice(0, 40)}`);
    }
    res.json(await deps.bus.request(DocumentGet, { accountId: principalOf(res).accountId, auditId }));
  });

  return router;
};
