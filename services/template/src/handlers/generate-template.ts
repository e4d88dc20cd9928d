import { endpoint, type Endpoint } from '@esign/bus';
import { TemplateGenerate } from '@esign/contracts';
import { generateDocument, type GenerateDeps } from '../domain/generate-document';

/** `template.generate`: validate, render, store; replies with the object key and signature positions. */
export const generateTemplateHandler = (deps: GenerateDeps): Endpoint =>
  endpoint(TemplateGenerate, (request) => generateDocument(deps, request));
