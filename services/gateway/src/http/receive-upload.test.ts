import { describe, expect, it } from 'vitest';
import { cleanFileName } from './receive-upload';
import { attachment } from './content-disposition';

describe('file names', () => {
  it('keeps only the base name, without control characters, and never empty', () => {
    expect(cleanFileName('C:\\Users\\ada\\contract.pdf')).toBe('contract.pdf');
    expect(cleanFileName('../../etc/passwd')).toBe('passwd');
    expect(cleanFileName('a\u0000b\r\nc.pdf')).toBe('abc.pdf');
    expect(cleanFileName('')).toBe('document');
    expect(cleanFileName(undefined)).toBe('document');
    expect(cleanFileName('Договор.pdf')).toBe('Договор.pdf');
  });

  it('puts an ASCII fallback and the UTF-8 name in Content-Disposition', () => {
    expect(attachment('Договор "v2"-signed.pdf')).toBe(
      `attachment; filename="_______ _v2_-signed.pdf"; filename*=UTF-8''${encodeURIComponent('Договор "v2"-signed.pdf')}`,
    );
  });
});
