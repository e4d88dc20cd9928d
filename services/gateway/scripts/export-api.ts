/**
 * Writes the API description the gateway serves, with the default configuration, to the files
 * committed beside the code: docs/openapi.json (the source of the SDK's types) and the Postman
 * exports postman/collection.json and postman/environment.json. A test fails when
 * they differ from what the gateway serves, so run this after changing an operation:
 *   pnpm api:export
 * The files are written as prettier formats them, so that `pnpm format:check` passes as they are.
 */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { apiDescriptionFiles } from '../src/endpoints/developer-resources';

const root = resolve(import.meta.dirname, '../../..');
for (const [path, content] of Object.entries(apiDescriptionFiles())) {
  const file = resolve(root, path);
  await writeFile(file, await format(content, { ...(await resolveConfig(file)), filepath: file }));
  console.log(`wrote ${path}`);
}
