import { endpoint, type Endpoint } from '@esign/bus';
import { TemplateList, type TTemplateSummary } from '@esign/contracts';
import type { TemplateDefinition } from '../domain/template';

/** What the list endpoint shows of a template (bounds and text stay inside the service). */
export const summarizeTemplate = (template: TemplateDefinition): TTemplateSummary => ({
  slug: template.slug,
  name: template.name,
  description: template.description,
  fields: template.fields.map(({ name, label, type, required }) => ({ name, label, type, required })),
});

/** `template.list`: every template with its fields. */
export const listTemplatesHandler = (deps: { templates: readonly TemplateDefinition[] }): Endpoint => {
  const templates = deps.templates.map(summarizeTemplate);
  return endpoint(TemplateList, () => Promise.resolve({ templates }));
};
