const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Text made safe to put into HTML, as element content or inside a quoted attribute value: every page
 * the gateway renders writes what it did not write itself (a file name, a message, a token, a default
 * value) through this.
 */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
