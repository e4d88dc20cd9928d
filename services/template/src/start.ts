import { blobOptionsFrom, createBlobStore } from '@esign/blob';
import { busOptionsFrom, busResource } from '@esign/bus';
import { createLogger, healthServer, startService, type Logger, metricsResource } from '@esign/telemetry';
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
export const startTemplateService = (
  config: TTemplateServiceConfig,
  options: { logger?: Logger } = {},
): Promise<TemplateService> => {
  const logger = options.logger ?? createLogger({ service: 'template', level: config.LOG_LEVEL });
  return startService(async (use, ready) => {
    const metrics = await use(metricsResource({ service: 'template', exporter: config.METRICS_EXPORTER }));
    const fonts = loadFontSet();
    const blob = await use({
      name: 'object storage',
      start: async () => {
        const blob = createBlobStore(blobOptionsFrom(config));
        await blob.ensureBucket();
        return blob;
      },
      ready: (blob) => blob.ping(),
    });
    // The first render pays for lazy font table parsing and JIT warm-up; do it before taking traffic.
    const [first] = TEMPLATES;
    if (first) {
      const fields = validateFields(first, first.example, {
        findUndrawable: (text) => findUndrawable(text, fonts),
      });
      await renderDocument(first.compose(fields), { fonts });
    }
    const bus = await use(busResource({ ...busOptionsFrom(config), name: 'template', logger }));
    await bus.serve([
      listTemplatesHandler({ templates: TEMPLATES }),
      generateTemplateHandler({ templates: templatesBySlug(TEMPLATES), fonts, blob }),
    ]);
    const health = await use(healthServer({ port: config.HEALTH_PORT, ready, metrics }));
    return { healthPort: health.port };
  });
};
