import { runService } from '@esign/telemetry';
import { loadDocumentStoreConfig } from './config';
import { startDocumentStore } from './start';

await runService({ name: 'document-store', loadConfig: loadDocumentStoreConfig, start: startDocumentStore });
