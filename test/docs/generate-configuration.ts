/** `pnpm docs:config`: writes docs/configuration.md from the services' config schemas. */
import { writeFile } from 'node:fs/promises';
import { CONFIGURATION_DOC, renderConfiguration } from './configuration';

await writeFile(CONFIGURATION_DOC, await renderConfiguration());
console.log(`wrote ${CONFIGURATION_DOC}`);
