import type { z } from 'zod';
import { publicSchemas } from './public-schemas';

/**
 * Registers a public body schema under its OpenAPI component name: the gateway answers through it, and
 * the OpenAPI document, the Postman collection and the SDK's types are generated from the registry.
 */
export const named = <S extends z.ZodType>(id: string, description: string, schema: S): S => {
  publicSchemas.add(schema, { id, description });
  return schema;
};
