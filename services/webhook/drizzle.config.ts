import { defineConfig } from 'drizzle-kit';

// `pnpm db:generate` writes SQL migrations from src/db/schema.ts; the service applies them at start-up.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
  schemaFilter: ['webhook'],
});
