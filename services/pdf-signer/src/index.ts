export { createSigner } from './create-signer';
export type { SignerOptions } from './create-signer';
export type { SignHooks, SignInput, SignResult, Signer } from './domain/assemble-signer';
export type { SigningMaterial } from './domain/cms/load-signing-identity';
export { DEVELOPMENT_CERT_CN } from './domain/cms/load-signing-identity';
export { startPdfSigner } from './start';
export type { PdfSignerService } from './start';
export { loadPdfSignerConfig, ZPdfSignerEnv } from './config';
export type { TPdfSignerEnv } from './config';
