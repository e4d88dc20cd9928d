/**
 * Writes the API description the gateway serves, with the default configuration, to the files
 * committed beside the code: docs/openapi.json (the source of the SDK's types). A test fails when
 * they differ from what the gateway serves, so run this after changing an operation:
 *   pnpm api:export
 */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { apiDescriptionFiles } from '../src/endpoints/developer-resources';

const root = resolve(import.meta.dirname, '../../..');
for (const [path, content] of Object.entries(apiDescriptionFiles())) {
  await writeFile(resolve(root, path), content);
  console.log(`wrote ${path}`);
}
