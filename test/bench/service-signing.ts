import { ZPdfSignerEnv } from '@esign/pdf-signer';

/**
 * What the pdf-signer service signs with when PADES_LEVEL and PUBLIC_BASE_URL are left unset (the
 * level, and the verification address and QR code on the audit page), read from its own config
 * schema: the benchmarks' in-process and bare signings do what the service does, and follow it.
 * (`bench:peers` sets its own level per row and keeps the signer-only import, so it does not use this.)
 */
export const SERVICE_SIGNING = {
  verifyBaseUrl: ZPdfSignerEnv.shape.PUBLIC_BASE_URL.parse(undefined),
  padesLevel: ZPdfSignerEnv.shape.PADES_LEVEL.parse(undefined),
} as const;
