import { runService } from '@esign/telemetry';
import { loadPdfSignerConfig } from './config';
import { startPdfSigner } from './start';

await runService({ name: 'pdf-signer', loadConfig: loadPdfSignerConfig, start: startPdfSigner });
