/** `pnpm docs:metrics`: writes the metrics tables of docs/operations.md from the metrics catalog. */
import { readFile, writeFile } from 'node:fs/promises';
import { OPERATIONS_DOC, renderOperations } from './metrics';

await writeFile(OPERATIONS_DOC, await renderOperations(await readFile(OPERATIONS_DOC, 'utf8')));
console.log(`wrote ${OPERATIONS_DOC}`);
