import { z } from 'zod';

/** One environment variable as docs/configuration.md shows it. */
export interface EnvVariable {
  readonly name: string;
  /** The default as it would be written in the environment; undefined when there is none. */
  readonly default: string | undefined;
  /** True when the service refuses to start without it. */
  readonly required: boolean;
  /** What it does: the schema's `.describe()` (or `.meta({ description })`); undefined when missing. */
  readonly description: string | undefined;
  /** The field's schema itself: the same object in every schema that shares the variable. */
  readonly field: z.core.$ZodType;
}

/** Renders a default the way it would be set: `.meta({ default })` wins for defaults that are not text. */
const showDefault = (value: unknown): string => {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  throw new Error(`a default that is not text (${JSON.stringify(value)}) needs .meta({ default: '…' })`);
};

/**
 * Reads the variables of an environment schema (a z.object of variables, as the services' config.ts
 * build them with this library): name, default, whether required, and meaning, looking through the
 * wrappers a field is built from (optional, default, pipe/transform). Nothing is parsed.
 */
export const describeEnv = (schema: z.ZodObject): EnvVariable[] =>
  Object.entries<z.core.$ZodType>(schema.shape).map(([name, field]) => {
    let description: string | undefined;
    let shown: string | undefined;
    let fallback: unknown;
    let hasDefault = false;
    let optional = false;
    let current: z.core.$ZodType | undefined = field;
    while (current) {
      const meta = z.globalRegistry.get(current);
      description ??= meta?.description;
      if (shown === undefined && typeof meta?.default === 'string') shown = meta.default;
      if (current instanceof z.ZodDefault || current instanceof z.ZodPrefault) {
        if (!hasDefault) fallback = current.def.defaultValue;
        hasDefault = true;
        current = current.def.innerType;
      } else if (current instanceof z.ZodOptional) {
        optional = true;
        current = current.def.innerType;
      } else if (current instanceof z.ZodPipe) {
        current = current.def.in;
      } else {
        current = undefined;
      }
    }
    return {
      name,
      default: shown ?? (hasDefault ? showDefault(fallback) : undefined),
      required: !hasDefault && !optional,
      description,
      field,
    };
  });
