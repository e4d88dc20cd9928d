/** `documentStore` -> `document-store`: how the chart names a component's objects and labels. */
export const kebabCase = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
