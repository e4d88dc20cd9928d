import type { TemplateDefinition } from '../domain/template';
import { consulting } from './consulting';
import { employmentOffer } from './employment-offer';
import { freelanceContract } from './freelance-contract';
import { invoice } from './invoice';
import { lease } from './lease';
import { nda } from './nda';

/**
 * Every template, in the order the list endpoint shows them. A template is one file in this folder
 * (its fields and its text); adding one means adding that file and its line here. What several
 * templates declare alike (a party's fields, currency, notice, governing law, signature lines) is in
 * `parts/`.
 */
export const TEMPLATES: readonly TemplateDefinition[] = [
  nda,
  freelanceContract,
  employmentOffer,
  lease,
  consulting,
  invoice,
];

/** Templates by slug. */
export const templatesBySlug = (
  templates: readonly TemplateDefinition[] = TEMPLATES,
): ReadonlyMap<string, TemplateDefinition> => new Map(templates.map((template) => [template.slug, template]));
