import { blobOptionsFrom, createBlobStore } from '@esign/blob';
import { busOptionsFrom, connectBus, type Bus } from '@esign/bus';
import { createLogger, startHealthServer, type Logger } from '@esign/telemetry';
import type { TTemplateServiceConfig } from './config';
import { loadFontSet } from './domain/fonts';
import { renderDocument } from './domain/render';
import { findUndrawable } from './domain/text-runs';
import { validateFields } from './domain/validate-fields';
import { generateTemplateHandler } from './handlers/generate-template';
import { listTemplatesHandler } from './handlers/list-templates';
import { TEMPLATES, templatesBySlug } from './templates';

/** A running template service. */
export interface TemplateService {
  /** Port of /healthz and /readyz. */
  readonly healthPort: number;
  /** Stop serving, finish in-flight renders, close the connection. */
  stop(): Promise<void>;
}

/**
 * Parse the fonts, make sure the bucket exists, render one document to warm up the layout engine, then
 * serve `template.list` and `template.generate`.
 */
export const startTemplateService = async (
  config: TTemplateServiceConfig,
  options: { logger?: Logger } = {},
): Promise<TemplateService> => {
  const logger = options.logger ?? createLogger({ service: 'template', level: config.LOG_LEVEL });
  const fonts = loadFontSet();
  const blob = createBlobStore(blobOptionsFrom(config));
  await blob.ensureBucket();
  // The first render pays for lazy font table parsing and JIT warm-up; do it before taking traffic.
  const [first] = TEMPLATES;
  if (first) {
    const fields = validateFields(first, first.example, {
      findUndrawable: (text) => findUndrawable(text, fonts),
    });
    await renderDocument(first.compose(fields), { fonts });
  }
  let bus: Bus | undefined;
  try {
    bus = await connectBus({ ...busOptionsFrom(config), name: 'template', logger });
    const connected = bus;
    await connected.serve([
      listTemplatesHandler({ templates: TEMPLATES }),
      generateTemplateHandler({ templates: templatesBySlug(TEMPLATES), fonts, blob }),
    ]);
    const health = await startHealthServer({
      port: config.HEALTH_PORT,
      ready: async () => connected.isConnected() && (await blob.ping()),
    });
    return {
      healthPort: health.port,
      async stop() {
        await health.close();
        await connected.drain();
      },
    };
  } catch (err) {
    await bus?.drain().catch(() => undefined);
    throw err;
  }
};
