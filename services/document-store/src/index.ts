export { startDocumentStore, type DocumentStore } from './start';
export { loadDocumentStoreConfig, ZDocumentStoreEnv, type TDocumentStoreConfig } from './config';
export { canonicalJson, GENESIS_HASH, hashAuditEntry, type TAuditHashInput } from './domain/hash-audit-entry';
